// HTTPS for kube-scheduler extenders: the `enableHTTPS` and `tlsConfig` fields of an
// `extenders:` entry, as kubernetes v1.26 builds the extender's transport:
//   pkg/scheduler/extender.go          makeTransport: tlsConfig copied into a rest.Config's
//                                      TLSClientConfig; enableHTTPS without a CA (caFile or
//                                      caData) means insecure (no server verification)
//   staging/src/k8s.io/client-go/transport/transport.go  TLSConfigFor / loadTLSFiles: *Data
//                                      wins over the *File; insecure with a CA is an error; a
//                                      client certificate only when both cert and key are set;
//                                      serverName for SNI and the certificate check, else the
//                                      URL's host
//   staging/src/k8s.io/kube-scheduler/config/v1/types.go  ExtenderTLSConfig (*Data: []byte,
//                                      base64 in YAML)
// As in Go's http.Client, the urlPrefix's scheme decides whether TLS is used: enableHTTPS
// with an http:// urlPrefix talks plain HTTP. Files are read (and every PEM checked) when the
// configuration is read, so a bad one fails as FILE:LINE; relative paths are taken from the
// configuration file's folder. Differences: with caData (not caFile) the system's roots are
// trusted beside it (cpp-httplib adds them to the store).
#pragma once

#include <memory>
#include <string>

#include "core/yaml_input.hpp"

namespace httplib {  // <httplib.h>, kept out of the scheduler's headers
class ClientImpl;
enum class Error;
}  // namespace httplib

namespace kubesim {

struct ExtenderTls {
  bool enable_https = false;
  bool insecure = false;
  std::string server_name;
  std::string cert_pem, key_pem, ca_pem;  // the file's contents or the decoded *Data
  std::string ca_file;                    // resolved path (loaded by path: only this CA is trusted)
};

// Reads `enableHTTPS` and `tlsConfig` of the extender entry `e`; fails through `in`.
ExtenderTls read_extender_tls(const YAML::Node& e, const YamlInput& in);

// The HTTP(S) client for `scheme_host_port` ("http://h:p" or "https://h:p").
std::unique_ptr<httplib::ClientImpl> make_extender_client(const std::string& scheme_host_port, const ExtenderTls& tls);

// A text for a failed request: httplib's error, with OpenSSL's verify result for a
// certificate that did not verify.
std::string extender_client_error(const httplib::ClientImpl& client, httplib::Error error);

}  // namespace kubesim
