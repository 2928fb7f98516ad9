// A self-signed certificate for `kubesim serve --tls` (OpenSSL 3, Debian libssl-dev): an
// EC P-256 key and an X.509 v3 certificate that is its own CA, valid for one year, whose
// subjectAltName names the address served (an IP address, or a DNS name) plus localhost and
// 127.0.0.1 / ::1, so kubectl, client-go and the Python client verify it with the
// kubeconfig's certificate-authority-data. The key is made from OpenSSL's CSPRNG: it is not
// on any simulation decision path.
#pragma once

#include <string>

namespace kubesim::api {

struct TlsIdentity {
  std::string certificate_pem;
  std::string private_key_pem;
};

// Throws std::runtime_error when OpenSSL fails.
TlsIdentity make_self_signed_identity(const std::string& address);

// A random token for the Authorization: Bearer header (32 bytes from OpenSSL's CSPRNG, hex).
std::string make_bearer_token();

// The base64 of `bytes` (the kubeconfig's certificate-authority-data).
std::string base64(const std::string& bytes);

}  // namespace kubesim::api
