#include "api/http_server.hpp"

#include "api/request_head.hpp"

#include <httplib.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <future>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace kubesim::api {

namespace {

// A worker is held while a request is read and answered and while a watch streams (a body
// may arrive as slowly as a byte per kReadTimeoutSeconds); with TLS also while the connection
// idles up to kKeepAliveSeconds in httplib's keep-alive loop. Connections waiting for a
// request hold none (the gate).
constexpr std::size_t kMaxWorkers = 4096;
constexpr time_t kKeepAliveSeconds = 5;  // httplib's and Go net/http clients' usual idle reuse
constexpr time_t kReadTimeoutSeconds = 5;
// A request's header and body must arrive within kube-apiserver's default --request-timeout
// (1 min, pkg/server/options/server_run_options.go), however slowly they trickle: a worker and
// an in-flight seat are held no longer (plain HTTP; with TLS httplib reads with per-read
// timeouts only, and the seats bound how many bodies are read at once).
constexpr auto kRequestReadTimeout = std::chrono::seconds(60);
// A refused request's connection is half-closed and closed this long after (or at the client's
// end, if sooner), so that the refusal is not lost to a TCP reset (Go's net/http
// closeWriteAndWait, src/net/http/server.go: a half-close, then a wait). What the client still
// sends is read and dropped, as the gate's lowest priority (see kRefuseBatch), so that a client
// that writes its whole body before it reads the answer (Python's http.client) gets it.
constexpr auto kLingerTimeout = std::chrono::seconds(2);
// The gate's work per turn of its loop is bounded, so that the header of a request that
// arrives during a flood of connections waits behind at most this much of the flood's work
// (accepts, closes of expired connections), not behind all of it; the rest goes on in the
// next turns, the same events' order kept.
constexpr int kAcceptBatch = 64;
constexpr std::size_t kCloseBatch = 64;
// Refusals (401, 413, 429) are written after the requests the gate admits: deciding one costs
// a peek and a parse, writing it a response and a half-close through the TCP stack, several
// times more. A turn writes kRefuseBatch of them once no connection is ready, and
// kRefuseTrickle while others are (so that a flood that never ends still gets its answers);
// the same for the reads that drop what refused clients still send.
constexpr std::size_t kRefuseBatch = 64;
constexpr std::size_t kRefuseTrickle = 8;
// Workers beyond kIdleWorkers end after kWorkerIdleTimeout without a task: after a burst (or an
// attack) the pool shrinks back to its idle size.
constexpr std::size_t kIdleWorkers = 4;
constexpr auto kWorkerIdleTimeout = std::chrono::seconds(10);
// kube-apiserver's http.Server (staging/src/k8s.io/apiserver/pkg/server/secure_serving.go):
// ReadHeaderTimeout 32 s, IdleTimeout 90 s ("matches http.DefaultTransport keep-alive timeout").
constexpr auto kReadHeaderTimeout = std::chrono::seconds(32);
constexpr auto kIdleTimeout = std::chrono::seconds(90);
// The gate looks at this much of a new connection's bytes for the end of the header; a client
// that has sent this much without one is no slow sender, and httplib answers it (400/414/431).
constexpr std::size_t kHeaderPeekBytes = 64 * 1024;

// kube-apiserver's max-in-flight filter (staging/src/k8s.io/apiserver/pkg/server/filters/
// maxinflight.go, defaults --max-requests-inflight=400 and --max-mutating-requests-inflight=200
// in pkg/server/options/server_run_options.go): requests beyond the limit are answered 429
// at once with Retry-After: 1; long-running requests (watches) are not counted.
constexpr int kMaxReadOnlyInFlight = 400;
constexpr int kMaxMutatingInFlight = 200;
// The listen backlog (the kernel caps it at net.core.somaxconn): httplib listens with 5, which
// reset connections under 50 concurrent clients.
constexpr int kListenBacklog = 4096;

// httplib 0.11 serves a connection only from its own accept loop: Server::process_and_close_socket
// (TLS handshake, keep-alive loop, close) is private. An explicit instantiation may name a
// private member (C++20 [temp.spec.general]/6: access checking does not apply to the names in
// it), which is how the gate hands httplib the connections it accepted. The call through the
// member pointer is virtual: an SSLServer does its handshake.
using ProcessSocket = bool (httplib::Server::*)(socket_t);
ProcessSocket process_socket_member();
template <ProcessSocket Member>
struct ProcessSocketAccess {
  friend ProcessSocket process_socket_member() { return Member; }
};
template struct ProcessSocketAccess<&httplib::Server::process_and_close_socket>;

std::string error_body(int code, const char* reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", message}, {"reason", reason}, {"code", code}}
      .dump();
}

// The lines, shared with other watchers, written in chunks of at most kWatchChunkBytes:
// httplib copies each chunk it frames, so a 3 MiB event costs each watcher 64 KiB at a time,
// not a copy of its own (300 watchers of a 3 MiB pod: 900 MB).
constexpr std::size_t kWatchChunkBytes = 64 * 1024;

bool write_watch_lines(const WatchLines& events, httplib::DataSink& sink) {
  for (const SharedText& line : events.lines)
    for (std::size_t at = 0; at < line->size(); at += kWatchChunkBytes)
      if (!sink.write(line->data() + at, std::min(kWatchChunkBytes, line->size() - at))) return false;
  return true;
}

// One plain-HTTP connection for httplib's request parser, as httplib's own SocketStream (read
// through a 4 KiB buffer, the socket's timeouts), so that a worker can serve one request and
// hand the connection back: whatever is still buffered is a pipelined request, served at once.
class ConnectionStream final : public httplib::Stream {
 public:
  explicit ConnectionStream(int fd) : fd_(fd) {}
  // The next request (header and body) must be read by kRequestReadTimeout from now.
  void start_request() { read_deadline_ = std::chrono::steady_clock::now() + kRequestReadTimeout; }
  bool is_readable() const override { return pos_ < end_ || wait(POLLIN, read_wait_ms()); }
  bool is_writable() const override { return wait(POLLOUT, kReadTimeoutSeconds * 1000) && alive(); }
  ssize_t read(char* out, std::size_t size) override {
    if (pos_ == end_) {
      if (!wait(POLLIN, read_wait_ms())) return -1;
      ssize_t got;
      do got = ::recv(fd_, buffer_, sizeof buffer_, 0);
      while (got < 0 && errno == EINTR);
      if (got <= 0) return got;
      pos_ = 0;
      end_ = static_cast<std::size_t>(got);
    }
    const std::size_t n = std::min(size, end_ - pos_);
    std::memcpy(out, buffer_ + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  // A response's head with a body to come (Content-Length, not chunked) is held and sent with
  // the body's first bytes in one system call (httplib writes them apart). Why: a client that
  // got the head alone went idle waiting for the body or not, as the body came before or after
  // it looked, and a Go client under kubesim-timeshim then ran its goroutines in another order
  // (vc-controller-manager's network-poller waits differed at the same request from run to run).
  ssize_t write(const char* data, std::size_t size) override {
    const std::string_view text(data, size);
    if (held_.empty() && text.starts_with("HTTP/") && text.ends_with("\r\n\r\n") &&
        text.find("\r\nContent-Length: ") != std::string_view::npos &&
        text.find("\r\nContent-Length: 0\r\n") == std::string_view::npos) {
      held_.assign(text);
      return static_cast<ssize_t>(size);
    }
    while (!held_.empty()) {  // the head, then as much of `data` as goes with it
      if (!wait(POLLOUT, kReadTimeoutSeconds * 1000)) return -1;
      iovec parts[2] = {{held_.data(), held_.size()}, {const_cast<char*>(data), size}};
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = 2;
      ssize_t sent;
      do sent = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
      while (sent < 0 && errno == EINTR);
      if (sent < 0) return sent;
      const auto head = static_cast<ssize_t>(held_.size());
      held_.erase(0, static_cast<std::size_t>(std::min(sent, head)));
      if (sent >= head) return sent - head;
    }
    if (!wait(POLLOUT, kReadTimeoutSeconds * 1000)) return -1;
    ssize_t sent;
    do sent = ::send(fd_, data, size, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent;
  }
  // Sends a held head whose body never came (a HEAD request's response); false if it failed.
  bool flush() {
    while (!held_.empty())
      if (write(nullptr, 0) < 0) return false;
    return true;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(::getsockname, ip, port); }
  socket_t socket() const override { return fd_; }
  bool buffered() const { return pos_ < end_; }

 private:
  // kReadTimeoutSeconds, or less when the request's deadline is nearer (0 once it is past).
  long read_wait_ms() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(read_deadline_ - std::chrono::steady_clock::now());
    return std::clamp<long>(static_cast<long>(left.count()), 0, kReadTimeoutSeconds * 1000);
  }
  bool wait(short events, long timeout_ms) const {
    if (timeout_ms <= 0) return false;
    pollfd p{fd_, events, 0};
    int rc;
    do rc = ::poll(&p, 1, static_cast<int>(timeout_ms));
    while (rc < 0 && errno == EINTR);
    return rc > 0 && !(p.revents & (POLLERR | POLLNVAL));
  }
  // Not closed by the peer (a watch stops streaming to a client that is gone).
  bool alive() const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return true;
    char c;
    return ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
  }
  void address(int (*get)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip.clear();
    port = 0;
    if (get(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    const bool v6 = a.ss_family == AF_INET6;
    const void* raw = v6 ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&a)->sin6_addr)
                         : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&a)->sin_addr);
    if (::inet_ntop(a.ss_family, raw, text, sizeof text)) ip = text;
    port = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&a)->sin6_port : reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  }

  int fd_;
  std::chrono::steady_clock::time_point read_deadline_ = std::chrono::steady_clock::now() + kRequestReadTimeout;
  char buffer_[4096];
  std::size_t pos_ = 0, end_ = 0;
  std::string held_;  // a response's head, sent with its body (write)
};

// What a worker thread knows of the request it serves between httplib's pre-routing handler
// (the header read, the body not yet) and the handler or the end of the request.
struct WorkerRequest {
  int fd = -1;                              // the connection (serve_connection)
  std::atomic<int>* seat = nullptr;         // the max-in-flight counter this request counts in
  bool seat_from_gate = false;              // `seat` was taken by the gate for the next request
  bool close_after_answer = false;          // refused before its body: the connection ends
  void release_seat() {
    if (seat) seat->fetch_sub(1);
    seat = nullptr;
    seat_from_gate = false;
  }
};
thread_local WorkerRequest t_request;

}  // namespace

// httplib's request parser and router for one request (Server::process_request is protected).
class HttpServer::PlainServer : public httplib::Server {
 public:
  // Serves one request; false when the connection must be closed (read error or the end,
  // "Connection: close", HTTP/1.0, or an answer httplib closes after).
  bool serve_request(httplib::Stream& stream) {
    bool closed = false;
    return process_request(stream, false, closed, nullptr) && !closed;
  }
};

namespace {

std::unique_ptr<httplib::Server> make_tls_server(const std::optional<TlsIdentity>& tls) {
  if (!tls) return nullptr;
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

// The reason phrases of the refusals the gate writes itself (RFC 9110, as httplib's).
std::string status_phrase(int code) {
  switch (code) {
    case 401: return "Unauthorized";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    default: return "Error";
  }
}

bool is_public_path(std::string_view path) {
  return path == "/version" || path == "/version/" || path == "/healthz" || path == "/livez" || path == "/readyz";
}

// Errors httplib answers itself (413 for an oversized body, 400 for a malformed request
// line) get a Status body like the apiserver's.
httplib::Server::HandlerResponse answer_httplib_error(const httplib::Request&, httplib::Response& res) {
  if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
  if (res.status == 413) {
    res.set_content(error_body(413, "RequestEntityTooLarge",
                               "Request entity too large: limit is " + std::to_string(HttpServer::kMaxRequestBytes)),
                    "application/json");
  } else {
    res.set_content(error_body(res.status, res.status == 404 ? "NotFound" : "BadRequest",
                               res.status == 404 ? "the server could not find the requested resource"
                                                 : "the server rejected our request for an unknown reason"),
                    "application/json");
  }
  return httplib::Server::HandlerResponse::Handled;
}

ApiRequest to_api_request(const httplib::Request& req) {
  ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query.emplace_back(k, v);
  r.content_type = req.get_header_value("Content-Type");
  r.accept = req.get_header_value("Accept");
  r.body = req.body;
  return r;
}

// A watch (?watch=<Go ParseBool true> or a /watch/ path) is long-running: not limited.
bool is_watch_request(const httplib::Request& req) {
  const std::string w = req.get_param_value("watch");
  return w == "1" || w == "t" || w == "T" || w == "TRUE" || w == "true" || w == "True" ||
         req.path.find("/watch/") != std::string::npos;
}

}  // namespace

HttpServer::HttpServer(ApiServer& api, Options options)
    : api_(api), options_(std::move(options)), server_(make_tls_server(options_.tls)) {
  if (!server_) {
    auto plain = std::make_unique<PlainServer>();
    plain_ = plain.get();
    server_ = std::move(plain);
  }
  // httplib's own accept loop (on the loopback socket of start()) runs its tasks on the pool
  // too; the pool outlives that loop, which ends before stop() shuts the pool down.
  struct PoolQueue : httplib::TaskQueue {
    std::shared_ptr<WorkerPool> pool;
    explicit PoolQueue(std::shared_ptr<WorkerPool> p) : pool(std::move(p)) {}
    void enqueue(std::function<void()> fn) override { pool->enqueue(std::move(fn)); }
    void shutdown() override {}
  };
  pool_ = std::make_shared<WorkerPool>(kMaxWorkers, kIdleWorkers, kWorkerIdleTimeout);
  server_->new_task_queue = [pool = pool_] { return new PoolQueue(pool); };
  server_->set_payload_max_length(kMaxRequestBytes);
  server_->set_keep_alive_max_count(1'000'000);
  server_->set_keep_alive_timeout(kKeepAliveSeconds);
  server_->set_read_timeout(kReadTimeoutSeconds, 0);
  server_->set_write_timeout(kReadTimeoutSeconds, 0);
  // TCP_NODELAY (inherited by accepted sockets on Linux): without it Nagle's algorithm and
  // the client's delayed ACK add ~40 ms to every response on a keep-alive connection.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  });
  server_->set_error_handler(httplib::Server::HandlerWithResponse(answer_httplib_error));
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return refuse_before_body(req, res) ? httplib::Server::HandlerResponse::Handled
                                        : httplib::Server::HandlerResponse::Unhandled;
  });
  const auto handler = [this](const httplib::Request& req, httplib::Response& res) { serve_request(req, res); };
  const std::string any = ".*";
  server_->Get(any, handler);
  server_->Post(any, handler);
  server_->Put(any, handler);
  server_->Patch(any, handler);
  server_->Delete(any, handler);
}

bool HttpServer::refuse_before_body(const httplib::Request& req, httplib::Response& res) {
  // The first request of a connection the gate handed on may hold the seat the gate took for it.
  const bool seated = std::exchange(t_request.seat_from_gate, false);
  if (!seated) t_request.release_seat();
  t_request.close_after_answer = false;
  auto refuse = [&](const Refusal& r) {
    t_request.release_seat();
    res.status = r.code;
    res.set_content(error_body(r.code, r.reason, r.message), "application/json");
    if (r.code == 429) res.set_header("Retry-After", "1");
    // A body that is never read ends the connection (the gate drains it; with TLS the reading
    // side is shut, which ends httplib's keep-alive loop).
    if (req.has_header("Content-Length") ? req.get_header_value("Content-Length") != "0"
                                         : req.has_header("Transfer-Encoding")) {
      res.set_header("Connection", "close");
      t_request.close_after_answer = true;
      if (!plain_ && t_request.fd >= 0) ::shutdown(t_request.fd, SHUT_RD);
    }
    return true;
  };
  std::optional<std::string> length;
  if (req.has_header("Content-Length")) length = req.get_header_value("Content-Length");
  if (const auto r = refusal_before_seat(req.path, req.get_header_value("Authorization"), length)) return refuse(*r);
  if (is_watch_request(req)) {  // long-running: not limited
    t_request.release_seat();
    return false;
  }
  if (seated) return false;
  const bool mutating = req.method != "GET";
  std::atomic<int>& counter = mutating ? mutating_in_flight_ : read_only_in_flight_;
  if (counter.fetch_add(1) >= (mutating ? kMaxMutatingInFlight : kMaxReadOnlyInFlight)) {
    counter.fetch_sub(1);
    return refuse(too_many_requests());
  }
  t_request.seat = &counter;
  return false;
}

std::optional<HttpServer::Refusal> HttpServer::refusal_before_seat(std::string_view path, std::string_view authorization,
                                                                   const std::optional<std::string_view>& length) const {
  // As kube-apiserver's handler chain (staging/src/k8s.io/apiserver/pkg/server/config.go
  // DefaultBuildHandlerChain): authentication and the max-in-flight filter come before the
  // handler reads the body, and a body beyond --max-request-bytes (3 MiB) is refused unread
  // (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go limitedReadBody), so a client
  // without the token, or beyond the limits, holds no worker while it trickles a body.
  if (!options_.bearer_token.empty() && !is_public_path(path) &&
      (!authorization.starts_with("Bearer ") || authorization.substr(7) != options_.bearer_token))
    return Refusal{401, "Unauthorized", "Unauthorized"};
  if (length) {
    std::size_t bytes = 0;
    const auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), bytes);
    if (ec != std::errc() || end != length->data() + length->size() || bytes > kMaxRequestBytes)
      return Refusal{413, "RequestEntityTooLarge", "Request entity too large: limit is " + std::to_string(kMaxRequestBytes)};
  }
  return std::nullopt;
}

HttpServer::Refusal HttpServer::too_many_requests() {
  return Refusal{429, "TooManyRequests", "Too many requests, please try again later."};
}

void HttpServer::serve_request(const httplib::Request& req, httplib::Response& res) {
  // Authenticated, within the limits and holding its in-flight seat (refuse_before_body).
  const ApiRequest r = to_api_request(req);
  std::shared_ptr<Watch> watch;
  ApiResponse out = [&] {
    struct Release {
      ~Release() { t_request.release_seat(); }
    } release;
    return api_.handle(r, &watch);
  }();
  res.status = out.status;
  if (!watch) {
    res.set_content(std::move(out.body), out.content_type);
    return;
  }
  res.set_chunked_content_provider(out.content_type, [this, w = std::move(watch), started = false](
                                                         std::size_t, httplib::DataSink& sink) mutable {
    // A watch is long-running: not a request in flight (ApiServer::in_flight) once its head is
    // written, which httplib does before it first asks for content. Answered before (as it
    // was), the watch's client could still be waiting for the head when cosim took it, and
    // its watch, for settled: a Go informer then opened its watch before or after a step, as
    // real time had it, and a change went to a different number of watches from run to run.
    // (A head that cannot be written ends the request: serve_connection answers it then.)
    if (!started) {
      started = true;
      answered();
    }
    WatchLines events;
    const bool alive = api_.poll_watch(*w, events, std::chrono::milliseconds(500));
    if (!events.empty()) {
      const bool written = write_watch_lines(events, sink);
      api_.watch_written();
      if (!written) return false;
    }
    if (!alive) {
      sink.done();
      return true;
    }
    return sink.is_writable();
  });
}

HttpServer::~HttpServer() { stop(); }

HttpServer::WorkerPool::WorkerPool(std::size_t max_threads, std::size_t idle_threads,
                                   std::chrono::milliseconds idle_timeout)
    : max_threads_(max_threads), idle_threads_(idle_threads), idle_timeout_(idle_timeout) {
  std::lock_guard lock(mutex_);
  while (threads_.size() < idle_threads_) start_thread();
}

void HttpServer::WorkerPool::start_thread() {
  threads_.emplace_back();
  const auto self = std::prev(threads_.end());
  *self = std::thread([this, self] { work(self); });
}

void HttpServer::WorkerPool::enqueue(std::function<void()> task, bool first) {
  std::unique_lock lock(mutex_);
  join_finished(lock);
  (first ? first_tasks_ : tasks_).push_back(std::move(task));
  if (idle_ >= tasks_.size() + first_tasks_.size() || threads_.size() >= max_threads_) {
    ready_.notify_one();
    return;
  }
  start_thread();
}

std::size_t HttpServer::WorkerPool::threads() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

void HttpServer::WorkerPool::join_finished(std::unique_lock<std::mutex>& lock) {
  if (finished_.empty()) return;
  std::list<std::thread> done;
  done.swap(finished_);
  lock.unlock();  // a finished thread may still need the mutex on its way out
  for (std::thread& t : done) t.join();
  lock.lock();
}

void HttpServer::WorkerPool::work(std::list<std::thread>::iterator self) {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    const bool woken = ready_.wait_for(lock, idle_timeout_,
                                       [this] { return stopping_ || !tasks_.empty() || !first_tasks_.empty(); });
    --idle_;
    if (!woken) {
      if (threads_.size() <= idle_threads_) continue;
      finished_.splice(finished_.end(), threads_, self);  // joined by the next enqueue or shutdown
      return;
    }
    std::deque<std::function<void()>>& from = first_tasks_.empty() ? tasks_ : first_tasks_;
    if (from.empty()) return;  // stopping
    std::function<void()> task = std::move(from.front());
    from.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

void HttpServer::WorkerPool::shutdown() {
  std::list<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  // Threads end on their own while the others are joined: take both lists until both are empty.
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      threads.splice(threads.end(), threads_);
      threads.splice(threads.end(), finished_);
    }
    if (threads.empty()) return;
    for (std::thread& t : threads) t.join();
    threads.clear();
  }
}

namespace {

// A listening socket on address:port (port 0: an ephemeral one), non-blocking, with the
// server's backlog; returns the fd and sets `bound` to the port. Throws std::runtime_error.
int listen_on(const std::string& address, int port, int& bound) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(address.c_str(), service.c_str(), &hints, &found); rc != 0)
    throw std::runtime_error("cannot listen on " + address + ": " + ::gai_strerror(rc));
  std::string error = "no address";
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, kListenBacklog) != 0) {
      error = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0)
    throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port) + " (" + error + ")");
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  bound = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

}  // namespace

int HttpServer::start(const std::string& address, int port) {
  // As Go programs do (os package, since Go 1.19): the soft limit on open files raised to the
  // hard one, so that thousands of connections can be open (Debian's soft default is 1024).
  if (rlimit files{}; ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  // Blocks of 1 MiB and more (a large object's text, its watch event line) always mapped on
  // their own, so that freeing them (the object deleted, its events evicted from the watch
  // log) returns the memory: glibc's default threshold rises to the largest block freed, after
  // which such blocks stay in the heap (mallopt(3), M_MMAP_THRESHOLD).
  ::mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
  int bound = 0;
  listen_fd_ = listen_on(address, port, bound);
  // httplib's keep-alive loop runs only while its server listens (Server::stop() ends the loops
  // by closing that socket), so it listens too, on a loopback port nobody is told about.
  if (server_->bind_to_any_port("127.0.0.1") < 0 && server_->bind_to_any_port("::1") < 0)
    throw std::runtime_error("cannot bind a loopback port");
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listen_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  gate_ = std::thread([this] { run_gate(); });
  return bound;
}

// The connections the gate watches until their request header is complete.
struct HttpServer::GateConnections {
  using Clock = std::chrono::steady_clock;
  // A waiting connection's deadline: kReadHeaderTimeout once a request has begun (at accept for
  // a new connection, at its first byte for a kept-alive one), else kIdleTimeout; a lingering
  // one (refused, half-closed: what it still sends is dropped) kLingerTimeout.
  struct Waiting {
    Clock::time_point deadline;
    bool reading;
    bool lingering = false;
    int refusal = 0;  // the status of a refusal decided and not yet written (in `refusals`)
    bool drain_queued = false;  // lingering, with bytes to drop (in `drains`)
  };
  int epoll_fd;
  std::unordered_map<int, Waiting> waiting;
  std::vector<Returned> returned;  // connections taken from returned_ (a reused buffer)
  std::vector<int> expired;        // found by the last sweep, closed kCloseBatch a turn
  std::deque<int> refusals;        // connections whose refusal is decided, in that order
  std::deque<int> drains;          // lingering connections with bytes to drop, in that order
  void add(int fd, bool reading, bool lingering = false) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;  // woken by new bytes, not by unread ones
    ev.data.fd = fd;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    const auto timeout = lingering ? std::chrono::duration_cast<Clock::duration>(kLingerTimeout)
                                   : reading ? kReadHeaderTimeout : kIdleTimeout;
    waiting[fd] = Waiting{Clock::now() + timeout, reading, lingering};
  }
  // A waiting connection refused by the gate: half-closed already, now lingering, with what
  // the client sent after its header to drop.
  void linger(int fd) {
    waiting[fd] = Waiting{Clock::now() + kLingerTimeout, false, true};
    queue_drain(fd);
  }
  void queue_drain(int fd) {
    if (Waiting& w = waiting[fd]; !w.drain_queued) {
      w.drain_queued = true;
      drains.push_back(fd);
    }
  }
  // Reads and drops what a lingering connection's client sent; closes it at the client's end.
  void drain(int fd, std::vector<char>& sink) {
    ssize_t got;
    do got = ::recv(fd, sink.data(), sink.size(), MSG_DONTWAIT);
    while (got > 0 || (got < 0 && errno == EINTR));
    if (got == 0 || errno != EAGAIN) close(fd);
  }
  void drain_some(std::size_t budget, std::vector<char>& sink) {
    for (; budget > 0 && !drains.empty(); --budget) {
      const int fd = drains.front();
      drains.pop_front();
      const auto w = waiting.find(fd);
      if (w == waiting.end() || !w->second.drain_queued) continue;  // closed since
      w->second.drain_queued = false;
      drain(fd, sink);
    }
  }
  void close(int fd) {
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    waiting.erase(fd);
  }
  void sweep(Clock::time_point now) {
    for (const auto& [fd, w] : waiting)
      if (w.deadline <= now) expired.push_back(fd);
  }
  // Closes up to kCloseBatch of the connections the sweep found expired (each checked again:
  // it may have been handed on, or closed, since). True when some are left for the next turn.
  bool close_expired(Clock::time_point now) {
    for (std::size_t k = 0; k < kCloseBatch && !expired.empty(); ++k) {
      const int fd = expired.back();
      expired.pop_back();
      if (const auto w = waiting.find(fd); w != waiting.end() && w->second.deadline <= now) close(fd);
    }
    return !expired.empty();
  }
};

void HttpServer::run_gate() {
  using Clock = std::chrono::steady_clock;
  GateConnections gate{epoll_fd_, {}, {}, {}, {}, {}};
  std::vector<char>& peek = peek_;
  peek.resize(kHeaderPeekBytes);
  std::vector<epoll_event> events(256);
  Clock::time_point next_sweep = Clock::now() + std::chrono::seconds(1);
  bool closes_left = false;
  for (;;) {
    const bool work_left = closes_left || !gate.refusals.empty() || !gate.drains.empty();
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), work_left ? 0 : 1000);
    for (int i = 0; i < n; ++i) {
      const int fd = events[static_cast<std::size_t>(i)].data.fd;
      if (fd == wake_fd_) {
        if (!gate_woken(gate)) return;
      } else if (fd == listen_fd_) {
        gate_accept(gate);
      } else {
        gate_peek(gate, fd, peek);
      }
    }
    const std::size_t budget = static_cast<std::size_t>(n) < events.size() ? kRefuseBatch : kRefuseTrickle;
    gate_write_refusals(gate, budget);
    gate.drain_some(budget, peek);
    const auto now = Clock::now();
    if (now >= next_sweep && gate.expired.empty()) {
      next_sweep = now + std::chrono::seconds(1);
      gate.sweep(now);
    }
    closes_left = gate.close_expired(now);
  }
}

bool HttpServer::gate_woken(GateConnections& gate) {
  std::uint64_t count;
  [[maybe_unused]] const ssize_t got = ::read(wake_fd_, &count, sizeof count);
  if (stopping_) {
    for (const auto& [open_fd, w] : gate.waiting) ::close(open_fd);
    std::lock_guard lock(returned_mutex_);
    for (const Returned& r : returned_) ::close(r.fd);
    returned_.clear();
    return false;
  }
  {
    std::lock_guard lock(returned_mutex_);
    gate.returned.swap(returned_);
  }
  for (const Returned& r : gate.returned) {
    gate.add(r.fd, false, r.lingering);
    // Edge-triggered: what a lingering connection sent before it was added wakes nobody.
    if (r.lingering) gate.queue_drain(r.fd);
  }
  gate.returned.clear();
  return true;
}

void HttpServer::gate_accept(GateConnections& gate) {
  // The listening socket is level-triggered: connections beyond this turn's batch wake the
  // next epoll_wait at once.
  for (int k = 0; k < kAcceptBatch; ++k) {
    const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) {
      // EMFILE/ENFILE: out of descriptors; the connection stays in the backlog until a
      // waiting one is closed (level-triggered: the gate tries again after its sweep).
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      break;
    }
    int yes = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    TcpEndpoints e;
    socklen_t local_size = sizeof e.local, remote_size = sizeof e.remote;
    if (::getsockname(c, reinterpret_cast<sockaddr*>(&e.local), &local_size) == 0 &&
        ::getpeername(c, reinterpret_cast<sockaddr*>(&e.remote), &remote_size) == 0) {
      std::lock_guard lock(endpoints_mutex_);
      endpoints_[c] = Endpoint{e, std::nullopt};
    }
    gate.add(c, true);
  }
}

bool HttpServer::bytes_unread() {
  // A listening socket's TCP_INFO reports its accept queue's length in tcpi_unacked
  // (net/ipv4/tcp.c, tcp_get_info).
  tcp_info listener{};
  socklen_t size = sizeof listener;
  if (::getsockopt(listen_fd_, IPPROTO_TCP, TCP_INFO, &listener, &size) == 0 && listener.tcpi_unacked != 0) return true;
  std::lock_guard lock(endpoints_mutex_);
  for (auto it = endpoints_.begin(); it != endpoints_.end();) {
    auto& [fd, endpoint] = *it;
    // Serve's end through its descriptor. While what serve has written into the connection has
    // not grown since its client was last seen with nothing unread, the client still has
    // nothing unread (only serve's writes add to its queue), so the kernel's socket lookup (a
    // netlink round trip, about 17 us) runs only for the connections serve wrote into since:
    // over tens of idle watch streams, a lookup of every end took over a millisecond, and
    // cosim asks on every look.
    if (const std::optional<OwnEnd> own = own_end(fd)) {
      if (own->unread != 0) return true;
      if (endpoint.client_read_all_at != own->written) {
        if (probe_.unread_bytes(reversed(endpoint.addresses)).value_or(0) != 0) return true;
        endpoint.client_read_all_at = own->written;
      }
      ++it;
      continue;
    }
    // The descriptor is no TCP socket any more: the connection closed (and the number may be
    // some other file's now). Its ends, if the kernel still has them, are looked up by address.
    const auto own = probe_.unread_bytes(endpoint.addresses), peer = probe_.unread_bytes(reversed(endpoint.addresses));
    if (own.value_or(0) != 0 || peer.value_or(0) != 0) return true;
    it = own || peer ? std::next(it) : endpoints_.erase(it);
  }
  return false;
}

void HttpServer::gate_peek(GateConnections& gate, int fd, std::vector<char>& peek) {
  if (const auto w = gate.waiting.find(fd); w != gate.waiting.end() && (w->second.lingering || w->second.refusal)) {
    if (w->second.lingering) gate.queue_drain(fd);  // bytes to drop, or the client's end
    return;  // a refusal to write: what the client sends meanwhile waits
  }
  // Bytes (or the end) on a waiting connection: ready once the header is complete.
  const ssize_t got = ::recv(fd, peek.data(), peek.size(), MSG_PEEK);
  if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
    gate.close(fd);
    return;
  }
  if (got < 0) return;
  const std::string_view seen(peek.data(), static_cast<std::size_t>(got));
  if (!options_.tls && static_cast<std::size_t>(got) < peek.size() && seen.find("\r\n\r\n") == seen.npos) {
    if (auto& w = gate.waiting[fd]; !w.reading) w = {std::chrono::steady_clock::now() + kReadHeaderTimeout, true};
    return;
  }
  if (!options_.tls && gate_refuse(gate, fd, seen)) return;
  hand_to_worker(gate, fd, nullptr);
}

void HttpServer::hand_to_worker(GateConnections& gate, int fd, std::atomic<int>* seat, bool first) {
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  gate.waiting.erase(fd);
  pool_->enqueue(
      [this, fd, seat] {
        t_request.seat = seat;
        t_request.seat_from_gate = seat != nullptr;
        serve_connection(fd);
      },
      first);
}

bool HttpServer::gate_refuse(GateConnections& gate, int fd, std::string_view header) {
  const std::optional<RequestHead> head = parse_request_head(header);
  if (!head) return false;  // unusual: httplib parses it on a worker, and the same checks apply
  std::optional<Refusal> refusal = refusal_before_seat(head->path, head->authorization, head->content_length);
  // The max-in-flight seat of a request the worker will answer is taken here, so that a burst
  // beyond the limit is refused before it takes workers; anything that may be a watch (not
  // limited) goes on without one.
  if (!refusal && head->query.find("watch") == head->query.npos && head->path.find("/watch/") == head->path.npos) {
    const bool mutating = head->method != "GET";
    std::atomic<int>& counter = mutating ? mutating_in_flight_ : read_only_in_flight_;
    if (counter.fetch_add(1) >= (mutating ? kMaxMutatingInFlight : kMaxReadOnlyInFlight)) {
      counter.fetch_sub(1);
      refusal = too_many_requests();
    } else {
      // A request without a body goes before those with one (a body may trickle, the
      // worker's thread may have yet to be made): a GET is not queued behind a flood of
      // admitted slow bodies.
      const bool bodiless = !head->transfer_encoding && (!head->content_length || *head->content_length == "0");
      hand_to_worker(gate, fd, &counter, bodiless);
      return true;
    }
  }
  if (!refusal) return false;
  gate.waiting[fd].refusal = refusal->code;
  gate.refusals.push_back(fd);
  return true;
}

const std::string& HttpServer::refusal_text(int code) {
  // The answer as httplib writes it (Server::write_response), always closing the connection;
  // each refusal's text is the same every time (refusal_before_seat, too_many_requests).
  auto text = [](const Refusal& r) {
    const std::string body = error_body(r.code, r.reason, r.message);
    return "HTTP/1.1 " + std::to_string(r.code) + " " + status_phrase(r.code) +
           "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nContent-Type: application/json\r\n" + (r.code == 429 ? "Retry-After: 1\r\n" : "") + "\r\n" + body;
  };
  static const std::string unauthorized = text(Refusal{401, "Unauthorized", "Unauthorized"});
  static const std::string too_large = text(Refusal{413, "RequestEntityTooLarge", "Request entity too large: limit is " +
                                                                                   std::to_string(kMaxRequestBytes)});
  static const std::string too_many = text(too_many_requests());
  return code == 401 ? unauthorized : code == 413 ? too_large : too_many;
}

void HttpServer::gate_write_refusals(GateConnections& gate, std::size_t budget) {
  for (; budget > 0 && !gate.refusals.empty(); --budget) {
    const int fd = gate.refusals.front();
    gate.refusals.pop_front();
    const auto w = gate.waiting.find(fd);
    if (w == gate.waiting.end() || !w->second.refusal) continue;  // closed (its header timed out)
    const std::string& text = refusal_text(std::exchange(w->second.refusal, 0));
    ssize_t sent;
    do sent = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    while (sent < 0 && errno == EINTR);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {  // a full send buffer: a worker answers
      hand_to_worker(gate, fd, nullptr);
    } else if (sent != static_cast<ssize_t>(text.size())) {
      gate.close(fd);
    } else {
      // As a worker's refusal (linger_in_gate): half-closed, then closed after kLingerTimeout.
      ::shutdown(fd, SHUT_WR);
      gate.linger(fd);
    }
  }
}

void HttpServer::serve_connection(int fd) {
  // Blocking, as httplib's accept loop leaves its sockets, with these timeouts.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const timeval read_timeout{kReadTimeoutSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &read_timeout, sizeof read_timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &read_timeout, sizeof read_timeout);
  t_request.fd = fd;
  if (!plain_) {
    (server_.get()->*process_socket_member())(fd);  // TLS: handshake, keep-alive loop, close
    t_request.release_seat();
    t_request.fd = -1;
    return;
  }
  ConnectionStream stream(fd);
  do {
    stream.start_request();
    // The request counts as in flight from before its bytes leave the socket until its
    // response is written (or, for a watch, until the handler starts the stream).
    {
      std::lock_guard lock(taken_mutex_);
      taken_.insert(std::this_thread::get_id());
    }
    api_.request_taken();
    const bool served = plain_->serve_request(stream);
    const bool keep = stream.flush() && served;
    answered();
    t_request.release_seat();  // a body that could not be read never reached the handler
    if (t_request.close_after_answer && !stopping_) {
      t_request.close_after_answer = false;
      linger_in_gate(fd);
      return;
    }
    if (!keep || stopping_) {
      ::close(fd);
      return;
    }
  } while (stream.buffered());  // a pipelined request is already here
  return_to_gate(fd);
}

void HttpServer::answered() {
  {
    std::lock_guard lock(taken_mutex_);
    if (taken_.erase(std::this_thread::get_id()) == 0) return;
  }
  api_.request_answered();
}

void HttpServer::linger_in_gate(int fd) {
  ::shutdown(fd, SHUT_WR);  // the answer is complete: the client sees its end
  return_to_gate(fd, true);
}

void HttpServer::return_to_gate(int fd, bool lingering) {
  if (stopping_) {
    ::close(fd);
    return;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  {
    std::lock_guard lock(returned_mutex_);
    returned_.push_back({fd, lingering});
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
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
  // The gate first (no connection is handed on after it), then httplib's loop (which ends the
  // TLS workers' keep-alive loops), then the workers; the wake-up descriptor is closed only
  // once no worker can hand a connection back.
  stopping_ = true;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
  gate_.join();
  ::close(listen_fd_);
  server_->stop();
  listener_.join();
  pool_->shutdown();
  for (const Returned& r : returned_) ::close(r.fd);
  returned_.clear();
  ::close(epoll_fd_);
  ::close(wake_fd_);
}

}  // namespace kubesim::api
