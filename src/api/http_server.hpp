// The HTTP side of the API (cpp-httplib from Debian): plain HTTP/1.1 with keep-alive, every
// request handed to the ApiServer, watches streamed as chunked JSON lines.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "api/api_server.hpp"

namespace httplib {
class Server;
}

namespace kubesim::api {

class HttpServer {
 public:
  // kube-apiserver's --max-request-bytes default for JSON bodies (3 MiB,
  // staging/src/k8s.io/apiserver/pkg/server/config.go MaxRequestBodyBytes).
  static constexpr std::size_t kMaxRequestBytes = 3 * 1024 * 1024;

  explicit HttpServer(ApiServer& api);
  ~HttpServer();
  // Binds (port 0: an ephemeral port) and starts serving on a background thread. Throws
  // std::runtime_error when the address cannot be bound.
  int start(const std::string& address, int port);
  // Stops accepting and closes the connections; returns once the listener has ended.
  void stop();

 private:
  ApiServer& api_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
};

}  // namespace kubesim::api
