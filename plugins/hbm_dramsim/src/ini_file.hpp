// The INI dialect of DRAMsim3 configuration files, as text: `[section]` headers, `key = value`
// lines (`:` works too), comments starting with `;` or `#` (at the start of a line or anywhere in a
// value: `tRPRE = 1; read preamble` is the value 1). Section and key names are case-insensitive
// and kept lower-cased; the spelling in the file is kept for messages.
//
// This layer knows nothing about DRAM: it only splits text into entries and reports lines it cannot
// split (as diagnostics, never exceptions), so any byte string yields a result.
#pragma once

#include <string>
#include <vector>

namespace tessera::hbm {

// A problem at one line of a file, with the message as the user should read it.
struct Diagnostic {
  int line = 0;  // 1-based; 0 = the file as a whole
  std::string message;
};

struct IniEntry {
  std::string section;  // lower-cased, "" before the first header
  std::string key;      // lower-cased
  std::string spelled;  // the key as written, for messages
  std::string value;    // trimmed, comment removed; may be empty
  int line = 0;
};

struct IniSection {
  std::string name;  // lower-cased
  std::string spelled;
  int line = 0;
};

struct IniFile {
  std::vector<IniSection> sections;  // in file order; a repeated header appears again
  std::vector<IniEntry> entries;     // in file order
  std::vector<Diagnostic> problems;  // lines that are neither a header nor `key = value`
};

IniFile parse_ini(const std::string& text);

std::string to_lower(std::string text);

}  // namespace tessera::hbm
