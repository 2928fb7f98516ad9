// Renders report.html in a real browser (headless Chromium): the page must produce a
// non-blank screenshot and Chromium's DOM must hold the charts as SVG elements. Chromium is a
// test dependency (scripts/install-deps.sh installs it); when it is missing these tests FAIL
// with a message saying so. KUBESIM_CHROMIUM overrides the browser's path.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/tenant_report.hpp"
#include "report/tenant_report_test_data.hpp"
#include "testing/text_files.hpp"

namespace kubesim {
namespace {

namespace fs = std::filesystem;

using testing::read_file;

bool is_executable(const fs::path& p) {
  std::error_code ec;
  const auto st = fs::status(p, ec);
  return !ec && fs::is_regular_file(st) && (st.permissions() & fs::perms::others_exec) != fs::perms::none;
}

// The Chromium binary, or "" when there is none.
std::string find_chromium() {
  if (const char* env = std::getenv("KUBESIM_CHROMIUM"); env != nullptr && *env != '\0')
    return is_executable(env) ? std::string(env) : std::string();
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/snap/bin", "/bin"}) {
      const fs::path p = fs::path(dir) / name;
      if (is_executable(p)) return p.string();
    }
  }
  return "";
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

class TenantReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    ASSERT_FALSE(chromium_.empty())
        << "headless Chromium is required for the report rendering test but was not found (looked for chromium, "
           "chromium-browser, google-chrome in /usr/bin, /usr/local/bin, /snap/bin; or set KUBESIM_CHROMIUM). "
           "Install it with scripts/install-deps.sh or `apt-get install chromium`.";
    dir_ = fs::path(::testing::TempDir()) /
           ("kubesim_report_browser_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    write_tenant_reports((dir_ / "report").string(), data_.input());
    html_ = fs::absolute(dir_ / "report" / "report.html");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Runs Chromium headless on `url` with `args`; stdout goes to `out`. Returns the exit status.
  int chromium(const std::string& args, const std::string& url, const fs::path& out) {
    const fs::path log = dir_ / "chromium.log";
    const std::string cmd = "timeout 120 " + quote(chromium_) +
                            " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
                            " --hide-scrollbars --user-data-dir=" +
                            quote((dir_ / "profile").string()) + " " + args + " " + quote(url) + " >" +
                            quote(out.string()) + " 2>>" + quote(log.string());
    const int status = std::system(cmd.c_str());
    if (status != 0) ADD_FAILURE() << "chromium failed (" << status << "): " << cmd << "\n" << read_file(log);
    return status;
  }

  // A 1280x2000 screenshot of `url` into `png`.
  void screenshot(const std::string& url, const fs::path& png) {
    chromium("--screenshot=" + quote(png.string()) + " --window-size=1280,2000", url, dir_ / "screenshot.out");
  }

  testdata::TenantReportFixture data_;
  std::string chromium_;
  fs::path dir_;
  fs::path html_;
};

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

TEST_F(TenantReportBrowserTest, ScreenshotIsNotBlank) {
  // A blank page of the same size as the reference: its PNG is little more than the header,
  // since an all-white image compresses to almost nothing.
  const fs::path blank_html = dir_ / "blank.html";
  std::ofstream(blank_html) << "<!DOCTYPE html><html><body></body></html>\n";
  const fs::path blank_png = dir_ / "blank.png";
  const fs::path report_png = dir_ / "report.png";
  screenshot("file://" + fs::absolute(blank_html).string(), blank_png);
  screenshot("file://" + html_.string(), report_png);
  ASSERT_TRUE(fs::exists(report_png)) << "no screenshot written";
  ASSERT_TRUE(fs::exists(blank_png)) << "no blank screenshot written";

  const std::string png = read_file(report_png);
  ASSERT_GE(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  // Device pixels: the window size, possibly scaled by a device scale factor.
  const std::uint32_t w = be32(png, 16);
  const std::uint32_t h = be32(png, 20);
  EXPECT_GE(w, 1280u);
  EXPECT_EQ(static_cast<std::uint64_t>(w) * 2000, static_cast<std::uint64_t>(h) * 1280) << w << "x" << h;

  const auto blank_size = fs::file_size(blank_png);
  const auto report_size = fs::file_size(report_png);
  EXPECT_GT(report_size, 20000u) << "the report screenshot is suspiciously small";
  EXPECT_GT(report_size, 4 * blank_size) << "the report screenshot (" << report_size
                                         << " bytes) looks blank next to a blank page's (" << blank_size << " bytes)";
}

TEST_F(TenantReportBrowserTest, ChartsAreParsedAsSvg) {
  const fs::path dom_file = dir_ / "dom.html";
  chromium("--dump-dom", "file://" + html_.string(), dom_file);
  const std::string dom = read_file(dom_file);
  ASSERT_FALSE(dom.empty()) << "chromium --dump-dom printed nothing";

  // The HTML parser keeps SVG's camelCase names (viewBox, clipPath, patternTransform) only
  // for elements it parsed into the SVG namespace; as unknown HTML they would be lowercased.
  std::size_t svgs = 0;
  for (std::size_t at = dom.find("<svg "); at != std::string::npos; at = dom.find("<svg ", at + 1)) {
    ++svgs;
    const std::size_t end = dom.find('>', at);
    EXPECT_NE(dom.substr(at, end - at).find(" viewBox=\""), std::string::npos) << dom.substr(at, end - at);
  }
  EXPECT_EQ(svgs, 6u);
  for (const char* id : {"cores-running", "cores-pending", "cores-completed", "utilisation", "queue", "gantt"})
    EXPECT_NE(dom.find(std::string("<clipPath id=\"") + id + "-clip\">"), std::string::npos) << id;
  EXPECT_EQ(dom.find("<clippath"), std::string::npos);
  EXPECT_NE(dom.find("patternTransform=\"rotate(45)\""), std::string::npos);
  EXPECT_NE(dom.find("<polygon class=\"series-area\" data-series=\"tenant1\""), std::string::npos);
  EXPECT_NE(dom.find("<table id=\"summary-table\">"), std::string::npos);
  EXPECT_NE(dom.find("<td>(cluster)</td>"), std::string::npos);
  EXPECT_EQ(dom.find("&lt;svg"), std::string::npos);  // no chart shown as text
}

}  // namespace
}  // namespace kubesim
