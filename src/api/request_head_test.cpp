#include "api/request_head.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kubesim::api {
namespace {

TEST(RequestHeadTest, ReadsTheFactsTheGateRefusesOn) {
  const std::string text =
      "POST /api/v1/namespaces/default/pods?fieldManager=x HTTP/1.1\r\nHost: kubesim\r\n"
      "authorization:  Bearer abc \r\nContent-Length: 65536\r\nContent-Length: 1\r\n\r\n{\"kind\"";
  const auto head = parse_request_head(text);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->method, "POST");
  EXPECT_EQ(head->path, "/api/v1/namespaces/default/pods");
  EXPECT_EQ(head->query, "fieldManager=x");
  EXPECT_EQ(head->authorization, "Bearer abc");  // names case-insensitive, values trimmed
  ASSERT_TRUE(head->content_length);
  EXPECT_EQ(*head->content_length, "65536");  // the first one, as httplib's get_header_value
  EXPECT_FALSE(head->transfer_encoding);
  EXPECT_EQ(head->size, text.find("{"));
}

TEST(RequestHeadTest, NoCompleteHeaderNoHead) {
  EXPECT_FALSE(parse_request_head("GET /version HTTP/1.1\r\nHost: x\r\n"));
  const auto head = parse_request_head("GET /version HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_TRUE(head->authorization.empty());
  EXPECT_FALSE(head->content_length);
}

TEST(RequestHeadTest, LeavesUnusualRequestsToHttplib) {
  // httplib decodes or refuses these itself: the gate must not decide on them.
  for (const char* text : {
           "GET /ver%73ion HTTP/1.1\r\n\r\n",                      // percent-encoded path
           "GET /version#x HTTP/1.1\r\n\r\n",                      // fragment
           "GET http://h/version HTTP/1.1\r\n\r\n",                // absolute form
           "OPTIONS /version HTTP/1.1\r\n\r\n",                    // another method
           "GET /version HTTP/2.0\r\n\r\n",                        // another version
           "GET  /version HTTP/1.1\r\n\r\n",                       // two spaces
           "GET /version HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n",   // obsolete line folding
           "GET /version HTTP/1.1\r\nno colon\r\n\r\n",
           "GET /version HTTP/1.1\nHost: x\r\n\r\n",               // a bare LF
       })
    EXPECT_FALSE(parse_request_head(text)) << text;
  EXPECT_FALSE(parse_request_head("GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n"));  // httplib: 414
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_FALSE(parse_request_head(many + "\r\n"));
}

TEST(RequestHeadTest, SeesTransferEncoding) {
  const auto head = parse_request_head("PATCH /api/v1/nodes/n1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_TRUE(head->transfer_encoding);
  EXPECT_FALSE(head->content_length);
}

}  // namespace
}  // namespace kubesim::api
