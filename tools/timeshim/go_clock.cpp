// See go_clock.hpp.
#include "go_clock.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace kubesim::timeshim {
namespace {

constexpr std::uint64_t kCodeOffset = 0x800;            // where in the vDSO mapping (past its ELF headers)

// The clock function, after its data: the virtual time's address, epoch ns, the counter's
// address, padding.
//   clock: cmp edi, 1; ja sys; mov rax, [counter]; je mono
//          mov ecx, 1; lock xadd [rax], rcx; add rcx, 1; add rcx, [epoch]; jmp both
//   mono:  mov rcx, [rax]; mov r8d, 1e9; add rcx, r8
//   both:  mov rdx, [virtual]; add rcx, [rdx]; mov rax, rcx; xor edx, edx; mov r8d, 1e9; div r8
//          mov [rsi], rax; mov [rsi+8], rdx; xor eax, eax; ret
//   sys:   mov eax, SYS_clock_gettime; syscall; ret
// It uses no stack and only registers the C convention lets a callee clobber (not BX, R12,
// which Go's callers keep across the call).
const unsigned char kClockPage[] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x83, 0xff, 0x01, 0x77, 0x4e, 0x48, 0x8b, 0x05, 0xe4, 0xff, 0xff, 0xff, 0x74, 0x17, 0xb9, 0x01,
    0x00, 0x00, 0x00, 0xf0, 0x48, 0x0f, 0xc1, 0x08, 0x48, 0x83, 0xc1, 0x01, 0x48, 0x03, 0x0d, 0xc5,
    0xff, 0xff, 0xff, 0xeb, 0x0c, 0x48, 0x8b, 0x08, 0x41, 0xb8, 0x00, 0xca, 0x9a, 0x3b, 0x4c, 0x01,
    0xc1, 0x48, 0x8b, 0x15, 0xa8, 0xff, 0xff, 0xff, 0x48, 0x03, 0x0a, 0x48, 0x89, 0xc8, 0x31, 0xd2,
    0x41, 0xb8, 0x00, 0xca, 0x9a, 0x3b, 0x49, 0xf7, 0xf0, 0x48, 0x89, 0x06, 0x48, 0x89, 0x56, 0x08,
    0x31, 0xc0, 0xc3, 0xb8, 0xe4, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3};
constexpr std::uint64_t kEntry = 32;  // the function's offset in kClockPage

// nanotime1 (sys_linux_amd64.s): MOVL $1, DI; LEAQ 0(SP), SI; MOVQ vdsoClockgettimeSym(SB), AX
// (RIP-relative: the 4 bytes after the pattern), then CMPQ AX, $0.
const unsigned char kNanotimeLoad[] = {0xbf, 0x01, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x34, 0x24, 0x48, 0x8b, 0x05};
const unsigned char kCompareZero[] = {0x48, 0x83, 0xf8, 0x00};

}  // namespace

std::optional<GoClock> install_go_clock(pid_t pid, const std::vector<TextRegion>& text, std::uint64_t vdso,
                                       std::uint64_t counter, std::uint64_t time, std::int64_t epoch_ns) {
  if (vdso == 0 || counter == 0 || time == 0) return std::nullopt;
  const std::uint64_t load = find_in_text(text, kNanotimeLoad, sizeof kNanotimeLoad);
  if (load == 0) return std::nullopt;
  std::int32_t disp = 0;
  unsigned char compare[sizeof kCompareZero];
  const std::uint64_t next = load + sizeof kNanotimeLoad + 4;  // the end of the MOVQ
  if (!read_memory(pid, load + sizeof kNanotimeLoad, &disp, 4) || !read_memory(pid, next, compare, sizeof compare) ||
      !std::equal(std::begin(compare), std::end(compare), std::begin(kCompareZero)))
    return std::nullopt;
  const std::uint64_t symbol = next + static_cast<std::uint64_t>(static_cast<std::int64_t>(disp));
  std::uint64_t current = 1;
  if (!read_memory(pid, symbol, &current, 8) || current != 0) return std::nullopt;  // not as expected: leave it
  unsigned char page[sizeof kClockPage];
  std::memcpy(page, kClockPage, sizeof kClockPage);
  const std::uint64_t data = vdso + kCodeOffset;
  const std::int64_t fields[3] = {static_cast<std::int64_t>(time), epoch_ns, static_cast<std::int64_t>(counter)};
  std::memcpy(page, fields, sizeof fields);
  const std::uint64_t zero = 0, entry = data + kEntry;
  if (!write_memory(pid, counter, &zero, 8) || !write_memory(pid, time, &zero, 8) || !poke_text(pid, data, page, sizeof page) ||
      !write_memory(pid, symbol, &entry, 8))
    return std::nullopt;
  return GoClock{time, counter};
}

bool set_go_clock(pid_t pid, const GoClock& clock, std::int64_t virtual_ns) {
  return write_memory(pid, clock.time, &virtual_ns, 8);  // the program may be running: no ptrace write
}

std::int64_t go_clock_reads(pid_t pid, const GoClock& clock) {
  std::int64_t n = 0;
  return read_memory(pid, clock.counter, &n, 8) ? n : -1;
}

std::int64_t go_clock_count_read(pid_t pid, const GoClock& clock) {
  std::int64_t n = go_clock_reads(pid, clock);
  if (n < 0) return -1;
  ++n;
  return write_memory(pid, clock.counter, &n, 8) ? n : -1;
}

}  // namespace kubesim::timeshim
