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

ElfSymbol find_symbol(int fd, std::string_view name, bool data) {
  Elf64_Ehdr eh{};
  if (!read_at(fd, 0, &eh, sizeof eh) || std::string_view(reinterpret_cast<const char*>(eh.e_ident), 4) != ELFMAG ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_EXEC || eh.e_machine != EM_X86_64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return {};
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (sections.empty() || !read_at(fd, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return {};
  for (const Elf64_Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= sections.size() || symtab.sh_entsize != sizeof(Elf64_Sym))
      continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    std::vector<Elf64_Sym> symbols(symtab.sh_size / sizeof(Elf64_Sym));
    std::vector<char> names(strtab.sh_size + 1, '\0');
    if (!read_at(fd, symtab.sh_offset, symbols.data(), symbols.size() * sizeof(Elf64_Sym)) ||
        !read_at(fd, strtab.sh_offset, names.data(), strtab.sh_size))
      return {};
    for (const Elf64_Sym& s : symbols)
      if (ELF64_ST_TYPE(s.st_info) == (data ? STT_OBJECT : STT_FUNC) && s.st_name < strtab.sh_size &&
          std::string_view(names.data() + s.st_name) == name)
        return {s.st_value, s.st_size};
  }
  return {};
}

}  // namespace

ElfSymbol elf_symbol(pid_t pid, std::string_view name, bool data) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/exe", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  const ElfSymbol symbol = find_symbol(fd, name, data);
  close(fd);
  return symbol;
}

std::uint64_t pinned_rand_value(std::uint64_t seed) {
  const std::uint64_t z = splitmix64(seed);
  std::uint64_t uint32_draw = 2 + (z >> 32) % 4094;  // v1 Uint32: in [2, 4096)
  if ((uint32_draw & 0x7f) < 2) uint32_draw |= 2;
  return uint32_draw << 31 | (z & 0x7fffffff) | 1;
}

}  // namespace kubesim::timeshim
