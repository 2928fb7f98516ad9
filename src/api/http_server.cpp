#include "api/http_server.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <future>
#include <stdexcept>

namespace kubesim::api {

namespace {

// httplib serves a connection on one pool thread for its whole life: each open watch holds
// one, and so does an idle keep-alive connection until kKeepAliveSeconds or a slow sender
// until a read times out (kReadTimeoutSeconds without a byte). The pool is sized so that
// hundreds of such connections still leave threads for real requests.
constexpr std::size_t kThreads = 1024;
constexpr time_t kKeepAliveSeconds = 5;  // httplib's and Go net/http clients' usual idle reuse
constexpr time_t kReadTimeoutSeconds = 5;

// kube-apiserver's max-in-flight filter (staging/src/k8s.io/apiserver/pkg/server/filters/
// maxinflight.go, defaults --max-requests-inflight=400 and --max-mutating-requests-inflight=200
// in pkg/server/options/server_run_options.go): requests beyond the limit are answered 429
// at once with Retry-After: 1; long-running requests (watches) are not counted.
constexpr int kMaxReadOnlyInFlight = 400;
// The listen backlog. Debian's httplib is a compiled library that listens with a backlog of
// 5 (CPPHTTPLIB_LISTEN_BACKLOG), which reset connections under 50 concurrent clients;
// listen() again on the bound socket raises it (Linux; the kernel caps it at somaxconn).
constexpr int kListenBacklog = 4096;
constexpr int kMaxMutatingInFlight = 200;

std::string error_body(int code, const char* reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", message}, {"reason", reason}, {"code", code}}
      .dump();
}

std::unique_ptr<httplib::Server> make_server(const std::optional<TlsIdentity>& tls) {
  if (!tls) return std::make_unique<httplib::Server>();
  auto read_pem = [](const std::string& pem) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    if (!bio) throw std::runtime_error("TLS set-up failed: BIO_new_mem_buf");
    return bio;
  };
  BIO* cert_bio = read_pem(tls->certificate_pem);
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO* key_bio = read_pem(tls->private_key_pem);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(key_bio);
  if (!cert || !key) {
    X509_free(cert);
    EVP_PKEY_free(key);
    throw std::runtime_error("TLS set-up failed: cannot read the certificate or key");
  }
  auto server = std::make_unique<httplib::SSLServer>(cert, key);  // takes its own references
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!server->is_valid()) throw std::runtime_error("TLS set-up failed: the certificate does not match the key");
  return server;
}

bool is_public_path(const std::string& path) {
  return path == "/version" || path == "/version/" || path == "/healthz" || path == "/livez" || path == "/readyz";
}

}  // namespace

HttpServer::HttpServer(ApiServer& api, Options options)
    : api_(api), options_(std::move(options)), server_(make_server(options_.tls)) {
  server_->new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  server_->set_payload_max_length(kMaxRequestBytes);
  server_->set_keep_alive_max_count(1'000'000);
  server_->set_keep_alive_timeout(kKeepAliveSeconds);
  server_->set_read_timeout(kReadTimeoutSeconds, 0);
  server_->set_write_timeout(kReadTimeoutSeconds, 0);
  // TCP_NODELAY (inherited by accepted sockets on Linux): without it Nagle's algorithm and
  // the client's delayed ACK add ~40 ms to every response on a keep-alive connection.
  server_->set_socket_options([this](socket_t sock) {
    listen_socket_ = sock;
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
    if (!options_.bearer_token.empty() && !is_public_path(req.path) &&
        req.get_header_value("Authorization") != "Bearer " + options_.bearer_token) {
      res.status = 401;
      res.set_content(error_body(401, "Unauthorized", "Unauthorized"), "application/json");
      return;
    }
    ApiRequest r;
    r.method = req.method;
    r.path = req.path;
    for (const auto& [k, v] : req.params) r.query.emplace_back(k, v);
    r.content_type = req.get_header_value("Content-Type");
    r.accept = req.get_header_value("Accept");
    r.body = req.body;
    // A watch (?watch=<Go ParseBool true> or a /watch/ path) is long-running: not limited.
    const std::string w = req.get_param_value("watch");
    const bool is_watch = w == "1" || w == "t" || w == "T" || w == "TRUE" || w == "true" || w == "True" ||
                          req.path.find("/watch/") != std::string::npos;
    const bool mutating = req.method != "GET";
    std::atomic<int>& counter = mutating ? mutating_in_flight_ : read_only_in_flight_;
    if (!is_watch && counter.fetch_add(1) >= (mutating ? kMaxMutatingInFlight : kMaxReadOnlyInFlight)) {
      counter.fetch_sub(1);
      res.status = 429;
      res.set_header("Retry-After", "1");
      res.set_content(error_body(429, "TooManyRequests", "Too many requests, please try again later."),
                      "application/json");
      return;
    }
    std::shared_ptr<Watch> watch;
    ApiResponse out = [&] {
      struct Release {
        std::atomic<int>* c;
        ~Release() {
          if (c) c->fetch_sub(1);
        }
      } release{is_watch ? nullptr : &counter};
      return api_.handle(r, &watch);
    }();
    res.status = out.status;
    if (!watch) {
      res.set_content(std::move(out.body), out.content_type);
      return;
    }
    res.set_chunked_content_provider(out.content_type, [this, w = std::move(watch)](std::size_t, httplib::DataSink& sink) {
      std::string events;
      const bool alive = api_.poll_watch(*w, events, std::chrono::milliseconds(500));
      if (!events.empty()) {
        const bool written = sink.write(events.data(), events.size());
        api_.watch_written();
        if (!written) return false;
      }
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
  if (listen_socket_ >= 0) ::listen(listen_socket_, kListenBacklog);
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  return bound;
}

bool HttpServer::stop_within(std::chrono::milliseconds deadline) {
  if (!listener_.joinable()) return true;
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> stopped = done->get_future();
  std::thread([this, done] {
    stop();
    done->set_value();
  }).detach();
  return stopped.wait_for(deadline) == std::future_status::ready;
}

void HttpServer::stop() {
  if (!listener_.joinable()) return;
  server_->stop();
  listener_.join();
}

}  // namespace kubesim::api
