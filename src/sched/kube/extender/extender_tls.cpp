#include "sched/kube/extender/extender_tls.hpp"

#include <httplib.h>

#include <netdb.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kubesim {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, PkeyFree>;

Bio pem_bio(const std::string& pem) { return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }
Cert first_cert(const std::string& pem) {
  Bio b = pem_bio(pem);
  return Cert(b ? PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr) : nullptr);
}
Key private_key(const std::string& pem) {
  Bio b = pem_bio(pem);
  return Key(b ? PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr) : nullptr);
}

// Every certificate of a PEM bundle into a new store (x509.CertPool.AppendCertsFromPEM);
// null when it holds none.
X509_STORE* ca_store(const std::string& pem) {
  Bio b = pem_bio(pem);
  X509_STORE* store = X509_STORE_new();
  int added = 0;
  while (X509* x = PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr)) {
    added += X509_STORE_add_cert(store, x) == 1 ? 1 : 0;
    X509_free(x);
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

// A []byte field: base64 (encoding/json), possibly wrapped over lines.
std::string decode_base64(const YAML::Node& n, const YamlInput& in, const std::string& where) {
  std::string text;
  for (char ch : in.scalar(n, where))
    if (ch != '\n' && ch != '\r' && ch != ' ') text += ch;
  if (text.size() % 4 != 0) in.fail(n, where + ": expected base64 (the PEM's bytes, as a []byte field is written)");
  std::string out(text.size() / 4 * 3, '\0');
  const int got = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (got < 0) in.fail(n, where + ": expected base64 (the PEM's bytes, as a []byte field is written)");
  std::size_t size = static_cast<std::size_t>(got);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --size;  // DecodeBlock counts padding
  out.resize(size);
  return out;
}

std::string resolve(const std::string& file, const YamlInput& in) {
  const std::filesystem::path p(file);
  return p.is_absolute() ? file : (std::filesystem::path(in.path()).parent_path() / p).string();
}

std::string read_whole(const YAML::Node& n, const YamlInput& in, const std::string& path, const std::string& where) {
  std::ifstream f(path, std::ios::binary);
  if (!f) in.fail(n, where + ": cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// dataFromSliceOrFile: the *Data field if set, else the file's contents (or "").
std::string data_or_file(const YAML::Node& t, const YamlInput& in, const char* data_key, const char* file_key,
                         std::string* resolved_file = nullptr) {
  const std::string data_where = std::string("extenders[].tlsConfig.") + data_key;
  const std::string file_where = std::string("extenders[].tlsConfig.") + file_key;
  if (t[data_key] && !t[data_key].IsNull()) {
    std::string d = decode_base64(t[data_key], in, data_where);
    if (!d.empty()) return d;
  }
  if (!t[file_key] || t[file_key].IsNull()) return {};
  const std::string file = in.scalar(t[file_key], file_where);
  if (file.empty()) return {};
  const std::string path = resolve(file, in);
  if (resolved_file) *resolved_file = path;
  return read_whole(t[file_key], in, path, file_where);
}

}  // namespace

ExtenderTls read_extender_tls(const YAML::Node& e, const YamlInput& in) {
  ExtenderTls tls;
  if (e["enableHTTPS"]) tls.enable_https = in.boolean(e["enableHTTPS"], "extenders[].enableHTTPS");
  if (const YAML::Node t = e["tlsConfig"]; t && !t.IsNull()) {
    in.check_keys(t, {"insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData"},
                  "extenders[].tlsConfig");
    if (t["insecure"]) tls.insecure = in.boolean(t["insecure"], "extenders[].tlsConfig.insecure");
    if (t["serverName"]) tls.server_name = in.string_or_null(t["serverName"], "extenders[].tlsConfig.serverName");
    tls.cert_pem = data_or_file(t, in, "certData", "certFile");
    tls.key_pem = data_or_file(t, in, "keyData", "keyFile");
    const bool ca_from_data = t["caData"] && !t["caData"].IsNull() && !in.scalar(t["caData"], "caData").empty();
    tls.ca_pem = data_or_file(t, in, "caData", "caFile", ca_from_data ? nullptr : &tls.ca_file);
    // TLSConfigFor: "specifying a root certificates file with the insecure flag is not allowed".
    if (tls.insecure && !tls.ca_pem.empty())
      in.fail(t, "extenders[].tlsConfig: specifying a root certificates file with the insecure flag is not allowed");
    if (!tls.ca_pem.empty()) {
      X509_STORE* s = ca_store(tls.ca_pem);
      if (!s) in.fail(t, "extenders[].tlsConfig: caFile/caData holds no PEM certificate");
      X509_STORE_free(s);
    }
    // HasCertAuth: a client certificate only with both a certificate and a key.
    if (!tls.cert_pem.empty() && !tls.key_pem.empty()) {
      const Cert cert = first_cert(tls.cert_pem);
      const Key key = private_key(tls.key_pem);
      ERR_clear_error();
      if (!cert) in.fail(t, "extenders[].tlsConfig: certFile/certData holds no PEM certificate");
      if (!key) in.fail(t, "extenders[].tlsConfig: keyFile/keyData holds no PEM private key");
      if (X509_check_private_key(cert.get(), key.get()) != 1) {
        ERR_clear_error();
        in.fail(t, "extenders[].tlsConfig: the private key does not match the client certificate");
      }
    } else {
      tls.cert_pem.clear();
      tls.key_pem.clear();
    }
  }
  // makeTransport: enableHTTPS without a CA trusts any server certificate.
  if (tls.enable_https && tls.ca_pem.empty()) tls.insecure = true;
  return tls;
}

namespace {

// The numeric address of `host` (first of getaddrinfo), for serverName: the client is named
// after serverName (SNI and the certificate check) and connects to the URL's host.
std::string numeric_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) return host;
  char buf[NI_MAXHOST];
  const bool ok = getnameinfo(res->ai_addr, res->ai_addrlen, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) == 0;
  freeaddrinfo(res);
  return ok ? std::string(buf) : host;
}

// The certificates after the first of a client certificate file (its chain: intermediates), sent
// with it in the handshake, as Go's tls.X509KeyPair keeps every CERTIFICATE block of certFile in
// Certificate.Certificate and crypto/tls sends them all: a server that trusts only the root then
// verifies a leaf signed by an intermediate.
void add_client_chain(SSL_CTX* ctx, const std::string& pem) {
  Bio b = pem_bio(pem);
  if (!b || !Cert(PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr))) return;  // the leaf, already in use
  while (X509* x = PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr)) {
    SSL_CTX_add1_chain_cert(ctx, x);  // takes its own reference
    X509_free(x);
  }
  ERR_clear_error();  // the end of the file reads as an error
}

}  // namespace

std::unique_ptr<httplib::ClientImpl> make_extender_client(const std::string& scheme_host_port, const ExtenderTls& tls) {
  const bool https = scheme_host_port.rfind("https://", 0) == 0;
  std::string host = scheme_host_port.substr(scheme_host_port.find("://") + 3);
  int port = https ? 443 : 80;
  const std::size_t bracket = host.find(']');
  if (const std::size_t colon = host.rfind(':'); colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    port = std::stoi(host.substr(colon + 1));
    host.resize(colon);
  }
  if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
  if (!https) return std::make_unique<httplib::ClientImpl>(host, port);

  const std::string name = tls.server_name.empty() ? host : tls.server_name;
  Cert cert = tls.cert_pem.empty() ? nullptr : first_cert(tls.cert_pem);
  Key key = tls.key_pem.empty() ? nullptr : private_key(tls.key_pem);
  auto client = std::make_unique<httplib::SSLClient>(name, port, cert.get(), key.get());  // takes its own references
  if (cert && key && client->ssl_context()) add_client_chain(client->ssl_context(), tls.cert_pem);
  if (name != host) client->set_hostname_addr_map({{name, numeric_address(host)}});
  client->enable_server_certificate_verification(!tls.insecure);
  if (!tls.ca_file.empty())
    client->set_ca_cert_path(tls.ca_file.c_str());
  else if (!tls.ca_pem.empty())
    client->set_ca_cert_store(ca_store(tls.ca_pem));  // the context owns it
  return client;
}

std::string extender_client_error(const httplib::ClientImpl& client, httplib::Error error) {
  std::string text = httplib::to_string(error) + " error";
  if (error == httplib::Error::SSLServerVerification) {
    if (const auto* ssl = dynamic_cast<const httplib::SSLClient*>(&client)) {
      const long v = ssl->get_openssl_verify_result();
      text += v == X509_V_OK ? std::string(" (the certificate's host names do not match)")
                             : std::string(" (") + X509_verify_cert_error_string(v) + ")";
    }
  }
  return text;
}

}  // namespace kubesim
