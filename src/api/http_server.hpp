// The HTTP side of the API (cpp-httplib from Debian): plain HTTP/1.1 with keep-alive, every
// request handed to the ApiServer, watches streamed as chunked JSON lines.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "api/api_server.hpp"
#include "api/tls.hpp"

namespace httplib {
class Server;
}

namespace kubesim::api {

class HttpServer {
 public:
  // kube-apiserver's --max-request-bytes default for JSON bodies (3 MiB,
  // staging/src/k8s.io/apiserver/pkg/server/config.go MaxRequestBodyBytes).
  static constexpr std::size_t kMaxRequestBytes = 3 * 1024 * 1024;

  struct Options {
    // When set, every request but /version, /healthz, /livez and /readyz (what the
    // apiserver's system:public-info-viewer role lets anyone read) must carry
    // "Authorization: Bearer <token>"; others get 401 Unauthorized as from the apiserver.
    std::string bearer_token;
    // When set, HTTPS with this certificate and key (make_self_signed_identity).
    std::optional<TlsIdentity> tls;
  };

  explicit HttpServer(ApiServer& api) : HttpServer(api, Options{}) {}
  HttpServer(ApiServer& api, Options options);
  ~HttpServer();
  // Binds (port 0: an ephemeral port) and starts serving on a background thread. Throws
  // std::runtime_error when the address cannot be bound.
  int start(const std::string& address, int port);
  // Stops accepting and closes the connections; returns once the listener has ended.
  void stop();
  // stop(), but waits at most `deadline`: an idle keep-alive connection or a slow sender can
  // hold a thread for up to kKeepAliveSeconds / kReadTimeoutSeconds. Returns false when the
  // connections were still open at the deadline; the stop then goes on in the background and
  // this object (and the ApiServer) must stay alive until the process ends.
  bool stop_within(std::chrono::milliseconds deadline);

 private:
  ApiServer& api_;
  Options options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  int listen_socket_ = -1;
  std::atomic<int> read_only_in_flight_{0};
  std::atomic<int> mutating_in_flight_{0};
};

}  // namespace kubesim::api
