// libFuzzer target: Batsim v4 JSON workloads (see fuzz/fuzz_input.hpp for the contract). It also
// checks that the reader's JSON cursor (workload/json_cursor.hpp) accepts exactly the documents
// nlohmann::json accepts, whose diagnostics the reader gives: a difference aborts.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_input.hpp"
#include "workload/batsim_workload.hpp"
#include "workload/json_cursor.hpp"

namespace {

bool cursor_accepts(std::string_view text) {
  try {
    kubesim::JsonCursor in(text);
    in.value();
    in.end();
    return true;
  } catch (const kubesim::JsonCursor::Malformed&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kubesim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (cursor_accepts(text) != nlohmann::json::accept(text)) std::abort();
  const std::string path = fuzz::input_file(data, size, ".json");
  return fuzz::expect_input_errors_only([&] {
    ResourceNames names;
    (void)read_batsim_workload(path, names);
  });
}
