// The few facts of an HTTP/1.x request header that the server refuses on before a worker
// thread reads it (HttpServer's gate): method, path, Authorization, Content-Length,
// Transfer-Encoding. The parse is deliberately narrow: anything httplib would parse
// differently (a percent-encoded or absolute target, an unusual method or version, folded,
// overlong or too many header lines) gives nullopt, and the request goes to a worker, where
// httplib parses it and the same refusals apply (HttpServer::refuse_before_body).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kubesim::api {

struct RequestHead {
  std::string_view method;          // GET, POST, PUT, PATCH or DELETE
  std::string_view path;            // the target before '?', as sent (no '%' in it)
  std::string_view query;           // after '?', empty without one
  std::string_view authorization;   // the first Authorization header's value, trimmed
  std::optional<std::string_view> content_length;  // the first Content-Length's value, trimmed
  bool transfer_encoding = false;   // a Transfer-Encoding header is present
  std::size_t size = 0;             // bytes of the header, its blank line included
};

// `bytes` begins with a request; nullopt unless it holds the whole header (up to "\r\n\r\n")
// and the header is of the plain shape above.
std::optional<RequestHead> parse_request_head(std::string_view bytes);

}  // namespace kubesim::api
