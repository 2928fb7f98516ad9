// See go_rand.hpp.
#include "go_rand.hpp"

#include <cstdio>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace kubesim::timeshim {
namespace {

bool read_at(int fd, std::uint64_t offset, void* out, std::size_t n) {
  return pread(fd, out, n, static_cast<off_t>(offset)) == static_cast<ssize_t>(n);
}

std::uint64_t find_function(int fd, std::string_view name) {
  Elf64_Ehdr eh{};
  if (!read_at(fd, 0, &eh, sizeof eh) || std::string_view(reinterpret_cast<const char*>(eh.e_ident), 4) != ELFMAG ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_EXEC || eh.e_machine != EM_X86_64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return 0;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (sections.empty() || !read_at(fd, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return 0;
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= sections.size() || symtab.sh_entsize != sizeof(Elf64_Sym))
      continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    std::vector<Elf64_Sym> symbols(symtab.sh_size / sizeof(Elf64_Sym));
    std::vector<char> names(strtab.sh_size + 1, '\0');
    if (!read_at(fd, symtab.sh_offset, symbols.data(), symbols.size() * sizeof(Elf64_Sym)) ||
        !read_at(fd, strtab.sh_offset, names.data(), strtab.sh_size))
      return 0;
    for (const Elf64_Sym& s : symbols)
      if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && s.st_name < strtab.sh_size &&
          std::string_view(names.data() + s.st_name) == name)
        return s.st_value;
  }
  return 0;
}

}  // namespace

std::uint64_t elf_function(pid_t pid, std::string_view name) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/exe", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const std::uint64_t address = find_function(fd, name);
  close(fd);
  return address;
}

std::uint64_t pinned_rand_value(std::uint64_t seed) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;  // splitmix64's output for seed
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  std::uint64_t uint32_draw = 2 + (z >> 32) % 4094;  // v1 Uint32: in [2, 4096)
  if ((uint32_draw & 0x7f) < 2) uint32_draw |= 2;
  return uint32_draw << 31 | (z & 0x7fffffff) | 1;
}

}  // namespace kubesim::timeshim
