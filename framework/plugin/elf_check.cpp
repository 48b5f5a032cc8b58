#include "framework/plugin/elf_check.hpp"

#include <elf.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

namespace tessera {

namespace {

static_assert(sizeof(void*) == 8, "the plugin host reads 64-bit ELF files only");
#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
constexpr uint16_t kHostMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#else
#error "name this host's ELF e_machine in elf_check.cpp"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif

std::string machine_name(uint16_t machine) {
  std::string name;
  switch (machine) {
    case EM_386:
      name = "i386";
      break;
    case EM_ARM:
      name = "32-bit ARM";
      break;
    case EM_X86_64:
      name = "x86-64";
      break;
    case EM_AARCH64:
      name = "AArch64";
      break;
    case EM_RISCV:
      name = "RISC-V";
      break;
    case EM_PPC64:
      name = "PowerPC64";
      break;
    case EM_S390:
      name = "s390";
      break;
    default:
      name = "machine";
  }
  return name + " (e_machine " + std::to_string(machine) + ")";
}

// The first bytes of a file that is not ELF, printable, for the message.
std::string opening(const unsigned char* bytes, size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    if (std::isprint(bytes[i]) && bytes[i] != '"' && bytes[i] != '\\') {
      text += static_cast<char>(bytes[i]);
    } else {
      static const char kHex[] = "0123456789abcdef";
      text += std::string("\\x") + kHex[bytes[i] >> 4] + kHex[bytes[i] & 15];
    }
  }
  return "\"" + text + "\"";
}

// Whether [offset, offset + length) lies within a file of `size` bytes, without overflow.
bool within(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

std::string past_end(const std::string& what, uint64_t offset, uint64_t length, uint64_t size) {
  return "is truncated or corrupt: " + what + " (file bytes " + std::to_string(offset) + ".." +
         std::to_string(offset + length) + ") ends past the end of the file (" +
         std::to_string(size) + " bytes)";
}

// Reads `length` bytes at `offset`; the reason when it cannot.
std::optional<std::string> read_at(int fd, void* out, size_t length, uint64_t offset) {
  auto* bytes = static_cast<unsigned char*>(out);
  while (length > 0) {
    ssize_t n = pread(fd, bytes, length, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::string("cannot be read: ") + std::strerror(errno);
    if (n == 0) return std::string("cannot be read: it became shorter while being checked");
    bytes += n;
    length -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return std::nullopt;
}

std::string too_short(uint64_t size) {
  return "is truncated: " + std::to_string(size) + " bytes, shorter than an ELF header (" +
         std::to_string(sizeof(Elf64_Ehdr)) + " bytes)";
}

// e_ident: magic, class, byte order and version, each with its own reason.
std::optional<std::string> ident_problem(const unsigned char* ident, uint64_t size) {
  const size_t have = size < EI_NIDENT ? static_cast<size_t>(size) : EI_NIDENT;
  if (size < SELFMAG || std::memcmp(ident, ELFMAG, SELFMAG) != 0)
    return "is not an ELF file: it starts with " + opening(ident, have < 8 ? have : 8) +
           ", a shared library with \"\\x7fELF\"";
  if (size < EI_NIDENT) return too_short(size);
  if (ident[EI_CLASS] == ELFCLASS32)
    return std::string("is a 32-bit ELF file (ELFCLASS32); this host loads 64-bit libraries");
  if (ident[EI_CLASS] != ELFCLASS64)
    return "is corrupt: invalid ELF class " + std::to_string(ident[EI_CLASS]);
  if (ident[EI_DATA] != kHostData) {
    if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
      return "is corrupt: invalid ELF byte order " + std::to_string(ident[EI_DATA]);
    return std::string("is a ") + (ident[EI_DATA] == ELFDATA2MSB ? "big" : "little") +
           "-endian ELF file; this host is " + (kHostData == ELFDATA2MSB ? "big" : "little") +
           "-endian";
  }
  if (ident[EI_VERSION] != EV_CURRENT)
    return "is corrupt: ELF version " + std::to_string(ident[EI_VERSION]) + ", expected " +
           std::to_string(EV_CURRENT);
  return std::nullopt;
}

// The rest of the ELF header: a shared object for this machine with sane table entry sizes.
std::optional<std::string> header_problem(const Elf64_Ehdr& h) {
  if (h.e_type != ET_DYN) {
    switch (h.e_type) {
      case ET_EXEC:
        return std::string("is an executable (ET_EXEC), not a shared library");
      case ET_REL:
        return std::string("is an object file (ET_REL), not a shared library: link it");
      case ET_CORE:
        return std::string("is a core dump (ET_CORE), not a shared library");
      default:
        return "is corrupt: ELF type " + std::to_string(h.e_type) + ", not a shared library";
    }
  }
  if (h.e_machine != kHostMachine)
    return "is built for " + machine_name(h.e_machine) + ", but this host is " +
           machine_name(kHostMachine);
  if (h.e_phentsize != sizeof(Elf64_Phdr))
    return "is corrupt: program header entries of " + std::to_string(h.e_phentsize) +
           " bytes, 64-bit ELF has " + std::to_string(sizeof(Elf64_Phdr));
  if (h.e_phnum == 0 || h.e_phnum == PN_XNUM)
    return "is corrupt: " + std::to_string(h.e_phnum) + " program headers";
  if (h.e_shoff != 0 && h.e_shentsize != sizeof(Elf64_Shdr))
    return "is corrupt: section header entries of " + std::to_string(h.e_shentsize) +
           " bytes, 64-bit ELF has " + std::to_string(sizeof(Elf64_Shdr));
  return std::nullopt;
}

// What the loader maps (PT_LOAD) or reads (PT_DYNAMIC) from the file must lie within it.
std::optional<std::string> segments_problem(const std::vector<Elf64_Phdr>& phdrs, uint64_t size) {
  bool dynamic = false;
  for (size_t i = 0; i < phdrs.size(); ++i) {
    const Elf64_Phdr& p = phdrs[i];
    if (p.p_type != PT_LOAD && p.p_type != PT_DYNAMIC) continue;
    const std::string what = std::string("its ") +
                             (p.p_type == PT_LOAD ? "PT_LOAD" : "PT_DYNAMIC") +
                             " segment at program header " + std::to_string(i);
    if (!within(p.p_offset, p.p_filesz, size)) return past_end(what, p.p_offset, p.p_filesz, size);
    if (p.p_type == PT_LOAD && p.p_filesz > p.p_memsz)
      return "is corrupt: " + what + " has " + std::to_string(p.p_filesz) +
             " bytes in the file but " + std::to_string(p.p_memsz) + " in memory";
    dynamic = dynamic || p.p_type == PT_DYNAMIC;
  }
  if (!dynamic) return std::string("has no dynamic section (PT_DYNAMIC): not a shared library");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> elf_problem(int fd, uint64_t size) {
  Elf64_Ehdr h{};
  const size_t head = size < sizeof(h) ? static_cast<size_t>(size) : sizeof(h);
  if (auto problem = read_at(fd, &h, head, 0)) return problem;
  if (auto problem = ident_problem(h.e_ident, size)) return problem;
  if (size < sizeof(h)) return too_short(size);
  if (auto problem = header_problem(h)) return problem;
  const uint64_t table = uint64_t{h.e_phnum} * sizeof(Elf64_Phdr);
  if (!within(h.e_phoff, table, size))
    return past_end("its program header table", h.e_phoff, table, size);
  std::vector<Elf64_Phdr> phdrs(h.e_phnum);
  if (auto problem = read_at(fd, phdrs.data(), table, h.e_phoff)) return problem;
  if (auto problem = segments_problem(phdrs, size)) return problem;
  // The loader never reads the section headers, but past the end they show a truncated file.
  const uint64_t sections = uint64_t{h.e_shnum} * sizeof(Elf64_Shdr);
  if (h.e_shoff != 0 && !within(h.e_shoff, sections, size))
    return past_end("its section header table", h.e_shoff, sections, size);
  return std::nullopt;
}

}  // namespace tessera
