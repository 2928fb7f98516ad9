#include "api/request_head.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace kubesim::api {

namespace {

// httplib 0.11's limit per line (CPPHTTPLIB_HEADER_MAX_LENGTH, and CPPHTTPLIB_REQUEST_URI_MAX_LENGTH
// for the target): beyond it httplib refuses the request itself (400, 414), so the gate leaves it
// to httplib; so too a header of unusually many lines.
constexpr std::size_t kMaxLineBytes = 8192;
constexpr std::size_t kMaxHeaderLines = 100;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// RFC 9110 token characters (a header field's name).
bool is_token(std::string_view s) {
  constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || kExtra.find(c) != kExtra.npos;
  });
}

// "METHOD SP /target SP HTTP/1.x"; false for anything else.
bool parse_request_line(std::string_view line, RequestHead& head) {
  constexpr std::array<std::string_view, 5> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE"};
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == line.npos ? line.npos : line.find(' ', sp1 + 1);
  if (sp2 == line.npos || line.find(' ', sp2 + 1) != line.npos) return false;
  head.method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (std::find(kMethods.begin(), kMethods.end(), head.method) == kMethods.end()) return false;
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  // Only a plain origin-form target: httplib percent-decodes the path and drops a fragment.
  if (target.empty() || target.front() != '/' || target.find_first_of("%#") != target.npos) return false;
  if (std::any_of(target.begin(), target.end(), [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; }))
    return false;
  const std::size_t q = target.find('?');
  head.path = target.substr(0, q);
  head.query = q == target.npos ? std::string_view{} : target.substr(q + 1);
  return true;
}

bool parse_field(std::string_view line, RequestHead& head) {
  const std::size_t colon = line.find(':');
  if (colon == line.npos || !is_token(line.substr(0, colon))) return false;  // also folded lines
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = trim(line.substr(colon + 1));
  if (std::any_of(value.begin(), value.end(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; })) return false;
  if (iequals(name, "Authorization")) {
    if (head.authorization.empty()) head.authorization = value;
  } else if (iequals(name, "Content-Length")) {
    if (!head.content_length) head.content_length = value;
  } else if (iequals(name, "Transfer-Encoding")) {
    head.transfer_encoding = true;
  }
  return true;
}

}  // namespace

std::optional<RequestHead> parse_request_head(std::string_view bytes) {
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == bytes.npos) return std::nullopt;
  RequestHead head;
  head.size = end + 4;
  std::string_view rest = bytes.substr(0, end + 2);  // every line ends in "\r\n"
  std::size_t lines = 0;
  while (!rest.empty()) {
    const std::size_t eol = rest.find("\r\n");
    const std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol + 2);
    if (line.size() + 2 > kMaxLineBytes || line.find('\n') != line.npos) return std::nullopt;
    const bool ok = lines == 0 ? parse_request_line(line, head) : parse_field(line, head);
    if (!ok || ++lines > kMaxHeaderLines + 1) return std::nullopt;
  }
  return head;
}

}  // namespace kubesim::api
