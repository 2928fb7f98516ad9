#include "api/tls.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace kubesim::api {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

[[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string("TLS set-up failed: ") + what); }

void check(int ok, const char* what) {
  if (ok <= 0) fail(what);
}

std::string to_pem(const std::function<int(BIO*)>& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) fail("BIO_new");
  check(write(bio.get()), "PEM_write");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

bool is_ip_address(const std::string& a) {
  return a.find(':') != std::string::npos ||
         a.find_first_not_of("0123456789.") == std::string::npos;
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext) fail("X509V3_EXT_conf_nid");
  check(X509_add_ext(cert, ext.get(), -1), "X509_add_ext");
}

}  // namespace

TlsIdentity make_self_signed_identity(const std::string& address) {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("EVP_PKEY_Q_keygen");
  X509Ptr cert(X509_new());
  if (!cert) fail("X509_new");
  check(X509_set_version(cert.get(), 2), "X509_set_version");
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial), "RAND_bytes");
  serial[0] &= 0x7f;  // a positive serial number (RFC 5280)
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()))) fail("serial number");
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);  // tolerate a client clock slightly behind
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  check(X509_set_pubkey(cert.get(), key.get()), "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("kubesim"), -1, -1,
                                   0),
        "subject");
  check(X509_set_issuer_name(cert.get(), name), "issuer");
  std::string san = "DNS:localhost,IP:127.0.0.1,IP:::1";
  if (!address.empty() && address != "localhost" && address != "127.0.0.1" && address != "::1")
    san += (is_ip_address(address) ? ",IP:" : ",DNS:") + address;
  add_extension(cert.get(), NID_subject_alt_name, san);
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
  add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
  check(X509_sign(cert.get(), key.get(), EVP_sha256()), "X509_sign");
  TlsIdentity out;
  out.certificate_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
  out.private_key_pem =
      to_pem([&](BIO* b) { return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  return out;
}

std::string make_bearer_token() {
  unsigned char bytes[32];
  check(RAND_bytes(bytes, sizeof bytes), "RAND_bytes");
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace kubesim::api
