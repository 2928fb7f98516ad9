#include "api/http_server.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <stdexcept>

namespace kubesim::api {

namespace {

// Enough threads for every watch a scheduler, kubectl and a benchmark open at once (each
// open watch holds one).
constexpr std::size_t kThreads = 512;

std::string error_body(int code, const char* reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", message}, {"reason", reason}, {"code", code}}
      .dump();
}

}  // namespace

HttpServer::HttpServer(ApiServer& api) : api_(api), server_(std::make_unique<httplib::Server>()) {
  server_->new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  server_->set_payload_max_length(kMaxRequestBytes);
  server_->set_keep_alive_max_count(1'000'000);
  // An idle keep-alive connection holds a thread until this timeout (also at shutdown).
  server_->set_keep_alive_timeout(60);
  // TCP_NODELAY (inherited by accepted sockets on Linux): without it Nagle's algorithm and
  // the client's delayed ACK add ~40 ms to every response on a keep-alive connection.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  });
  // Errors httplib answers itself (413 for an oversized body, 400 for a malformed request
  // line) get a Status body like the apiserver's.
  server_->set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 413) {
      res.set_content(error_body(413, "RequestEntityTooLarge",
                                 "Request entity too large: limit is " + std::to_string(kMaxRequestBytes)),
                      "application/json");
    } else {
      res.set_content(error_body(res.status, res.status == 404 ? "NotFound" : "BadRequest",
                                 res.status == 404 ? "the server could not find the requested resource"
                                                   : "the server rejected our request for an unknown reason"),
                      "application/json");
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  const auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    ApiRequest r;
    r.method = req.method;
    r.path = req.path;
    for (const auto& [k, v] : req.params) r.query.emplace_back(k, v);
    r.content_type = req.get_header_value("Content-Type");
    r.accept = req.get_header_value("Accept");
    r.body = req.body;
    std::shared_ptr<Watch> watch;
    ApiResponse out = api_.handle(r, &watch);
    res.status = out.status;
    if (!watch) {
      res.set_content(std::move(out.body), out.content_type);
      return;
    }
    res.set_chunked_content_provider(out.content_type, [this, w = std::move(watch)](std::size_t, httplib::DataSink& sink) {
      std::string events;
      const bool alive = api_.poll_watch(*w, events, std::chrono::milliseconds(500));
      if (!events.empty() && !sink.write(events.data(), events.size())) return false;
      if (!alive) {
        sink.done();
        return true;
      }
      return sink.is_writable();
    });
  };
  const std::string any = ".*";
  server_->Get(any, handler);
  server_->Post(any, handler);
  server_->Put(any, handler);
  server_->Patch(any, handler);
  server_->Delete(any, handler);
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::start(const std::string& address, int port) {
  int bound = port;
  if (port == 0) {
    bound = server_->bind_to_any_port(address);
    if (bound < 0) throw std::runtime_error("cannot bind " + address);
  } else if (!server_->bind_to_port(address, port)) {
    throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port) + " (in use?)");
  }
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  return bound;
}

void HttpServer::stop() {
  if (!listener_.joinable()) return;
  server_->stop();
  listener_.join();
}

}  // namespace kubesim::api
