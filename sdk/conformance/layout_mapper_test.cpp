// LayoutMapper contracts, on the layouts the plugin's manifest names (conformance: {layouts: ...},
// valid on its default chip; docs/plugin-authoring.md): inverse undoes locate and locate puts no
// two elements in one place, on every index of small tensors and a fixed sample of large ones;
// the canonical text parses back to the same layout and prints the same; a malformed text is
// INVALID_ARGUMENT with a message starting "column N:". Malformed texts are the manifest's
// `malformed_layouts`, or else each sample cut to half its length.
#include <map>
#include <random>
#include <regex>
#include <tuple>
#include <utility>

#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_layout_mapper_suite() {}

namespace {

constexpr uint64_t kAllIndicesUpTo = 4096;
constexpr size_t kSampledIndices = 4096;
constexpr uint64_t kLayoutSampleSeed = 0x1a7007;

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string text;
  for (uint64_t e : shape) text += (text.empty() ? "" : "x") + std::to_string(e);
  return text;
}

std::string index_text(const uint64_t* index, size_t rank) {
  std::string text = "(";
  for (size_t a = 0; a < rank; ++a) text += (a ? ", " : "") + std::to_string(index[a]);
  return text + ")";
}

// Row-major indices into `shape`: all of them for small tensors, else the first and last element
// and a fixed pseudo-random sample.
std::vector<uint64_t> sample_indices(const std::vector<uint64_t>& shape) {
  double elements = 1;
  for (uint64_t e : shape) elements *= static_cast<double>(e);
  std::vector<uint64_t> out;
  auto add = [&](auto&& axis_value) {
    for (size_t a = 0; a < shape.size(); ++a) out.push_back(axis_value(a));
  };
  if (elements <= static_cast<double>(kAllIndicesUpTo)) {
    for (uint64_t flat = 0; flat < static_cast<uint64_t>(elements); ++flat) {
      uint64_t rest = flat, stride = static_cast<uint64_t>(elements);
      add([&](size_t a) {
        stride /= shape[a];
        uint64_t v = rest / stride;
        rest %= stride;
        return v;
      });
    }
    return out;
  }
  add([](size_t) { return uint64_t{0}; });
  add([&](size_t a) { return shape[a] - 1; });
  std::mt19937_64 random(kLayoutSampleSeed);
  for (size_t i = 0; i < kSampledIndices; ++i) add([&](size_t a) { return random() % shape[a]; });
  return out;
}

// What identifies a place: the block at the memory level and the address in it.
auto place(const tessera_location& l) {
  return std::tuple(l.core, l.address);
}

std::string place_text(const tessera_location& l) {
  return "block " + std::to_string(l.core) + " address " + std::to_string(l.address);
}

class LayoutMapperTest : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::layout_mapper);
    auto mapper = create_default<tessera_layout_mapper>(library());
    ASSERT_TRUE(mapper) << mapper.error().message;
    mapper_ = std::move(mapper).value();
  }

  // A parsed layout, released through the mapper that parsed it.
  struct Parsed {
    const tessera_layout_mapper* mapper = nullptr;
    tessera_layout* layout = nullptr;
    Parsed() = default;
    Parsed(const Parsed&) = delete;
    Parsed& operator=(const Parsed&) = delete;
    ~Parsed() {
      if (layout != nullptr) mapper->release_layout(mapper, layout);
    }
  };

  std::string sample_name(const LayoutSample& s) const {
    return manifest().file.string() + ":" + std::to_string(s.line) + ": '" + s.text + "' for " +
           shape_text(s.shape);
  }

  std::optional<Error> parse(const std::string& text, const std::vector<uint64_t>& shape,
                             Parsed& out) const {
    out.mapper = mapper_.get();
    const tessera_layout_mapper* m = mapper_.get();
    return invoke("parse", [&] {
      return m->parse(m, text.c_str(), shape.data(), static_cast<uint32_t>(shape.size()),
                      &out.layout);
    });
  }

  // The canonical text: asked for with no buffer (OUT_OF_RANGE and its length), then read.
  std::string format(const Parsed& p) const {
    const tessera_layout_mapper* m = mapper_.get();
    size_t length = 0;
    auto asked = invoke("format", [&] { return m->format(m, p.layout, nullptr, 0, &length); });
    EXPECT_TRUE(asked && asked->code == StatusCode::out_of_range)
        << "format with capacity 0: " << outcome(asked) << "; expected OUT_OF_RANGE and *length";
    std::string text(length + 1, '\x7f');
    EXPECT_EQ(
        outcome(invoke("format",
                       [&] { return m->format(m, p.layout, text.data(), text.size(), &length); })),
        "OK");
    EXPECT_EQ(text.find('\0'), length) << "format: *length is not the text's length";
    return text.substr(0, std::min(text.find('\0'), length));
  }

  std::vector<tessera_location> locate(const Parsed& p, const std::vector<uint64_t>& indices,
                                       size_t rank) const {
    const tessera_layout_mapper* m = mapper_.get();
    std::vector<tessera_location> out(indices.size() / rank);
    auto error = invoke(
        "locate", [&] { return m->locate(m, p.layout, indices.data(), out.size(), out.data()); });
    if (!error) return out;
    ADD_FAILURE() << error->message;
    return {};
  }

  const std::vector<LayoutSample>& samples() const { return manifest().conformance_layouts; }

  Owned<tessera_layout_mapper> mapper_;
};

// The samples themselves: named, and valid.
class LayoutMapperSamples : public LayoutMapperTest {};

// The contracts, on the samples (skipped without them: LayoutMapperSamples fails then).
class LayoutMapperContract : public LayoutMapperTest {
 protected:
  void SetUp() override {
    LayoutMapperTest::SetUp();
    if (IsSkipped()) return;
    if (samples().empty()) GTEST_SKIP() << "no sample layouts (LayoutMapperSamples says why)";
  }
};

TEST_P(LayoutMapperSamples, AreNamedByTheManifestAndParse) {
  ASSERT_FALSE(manifest().conformance_layouts.empty())
      << manifest().file.string()
      << " names no sample layouts: the suite needs texts valid on the default chip, e.g. "
         "conformance: {layouts: [{shape: 100x100, text: \"...\"}]} (tessera_add_plugin "
         "CONFORMANCE_LAYOUTS; docs/plugin-authoring.md)";
  for (const LayoutSample& s : manifest().conformance_layouts) {
    Parsed p;
    EXPECT_EQ(outcome(parse(s.text, s.shape, p)), "OK") << sample_name(s);
  }
}

TEST_P(LayoutMapperContract, InverseUndoesLocate) {
  for (const LayoutSample& s : samples()) {
    Parsed p;
    ASSERT_EQ(outcome(parse(s.text, s.shape, p)), "OK") << sample_name(s);
    const size_t rank = s.shape.size();
    std::vector<uint64_t> indices = sample_indices(s.shape);
    std::vector<tessera_location> places = locate(p, indices, rank);
    ASSERT_EQ(places.size(), indices.size() / rank);
    std::vector<uint64_t> back(indices.size(), UINT64_MAX);
    const tessera_layout_mapper* m = mapper_.get();
    ASSERT_EQ(
        outcome(invoke(
            "inverse",
            [&] { return m->inverse(m, p.layout, places.data(), places.size(), back.data()); })),
        "OK")
        << sample_name(s);
    Problems problems;
    for (size_t i = 0; i < places.size(); ++i)
      if (!std::equal(back.begin() + i * rank, back.begin() + (i + 1) * rank,
                      indices.begin() + i * rank))
        problems.add(index_text(&indices[i * rank], rank) + " -> " + place_text(places[i]) +
                     " -> " + index_text(&back[i * rank], rank));
    EXPECT_TRUE(problems.empty()) << sample_name(s) << ": inverse(locate(i)) != i"
                                  << problems.summary();
  }
}

TEST_P(LayoutMapperContract, LocatePutsNoTwoElementsInOnePlace) {
  for (const LayoutSample& s : samples()) {
    Parsed p;
    ASSERT_EQ(outcome(parse(s.text, s.shape, p)), "OK") << sample_name(s);
    const size_t rank = s.shape.size();
    std::vector<uint64_t> indices = sample_indices(s.shape);
    std::vector<tessera_location> places = locate(p, indices, rank);
    std::map<std::tuple<uint32_t, uint64_t>, size_t> owner;
    Problems problems;
    for (size_t i = 0; i < places.size(); ++i) {
      if (places[i].num_levels > TESSERA_MAX_LEVELS)
        problems.add(index_text(&indices[i * rank], rank) + ": num_levels " +
                     std::to_string(places[i].num_levels) + " > TESSERA_MAX_LEVELS");
      auto [it, fresh] = owner.emplace(place(places[i]), i);
      if (!fresh && !std::equal(indices.begin() + i * rank, indices.begin() + (i + 1) * rank,
                                indices.begin() + it->second * rank))
        problems.add(index_text(&indices[it->second * rank], rank) + " and " +
                     index_text(&indices[i * rank], rank) + " both locate to " +
                     place_text(places[i]));
    }
    EXPECT_TRUE(problems.empty()) << sample_name(s) << problems.summary();
  }
}

TEST_P(LayoutMapperContract, CanonicalTextParsesBackToTheSameLayout) {
  for (const LayoutSample& s : samples()) {
    Parsed p, again;
    ASSERT_EQ(outcome(parse(s.text, s.shape, p)), "OK") << sample_name(s);
    std::string canonical = format(p);
    ASSERT_EQ(outcome(parse(canonical, s.shape, again)), "OK")
        << sample_name(s) << ": its canonical text '" << canonical << "' does not parse";
    EXPECT_EQ(format(again), canonical) << sample_name(s) << ": format(parse(format(parse(t))))";
    std::vector<uint64_t> indices = sample_indices(s.shape);
    std::vector<tessera_location> a = locate(p, indices, s.shape.size()),
                                  b = locate(again, indices, s.shape.size());
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_TRUE(place(a[i]) == place(b[i]))
          << sample_name(s) << ": its canonical text '" << canonical << "' locates "
          << index_text(&indices[i * s.shape.size()], s.shape.size()) << " at " << place_text(b[i])
          << ", the sample at " << place_text(a[i]);
  }
}

TEST_P(LayoutMapperContract, MalformedTextsAreInvalidArgumentAtAColumn) {
  std::vector<LayoutSample> malformed = manifest().conformance_malformed_layouts;
  if (malformed.empty())
    for (LayoutSample s : samples()) {
      s.text.resize(s.text.size() / 2);
      malformed.push_back(s);
    }
  const std::regex column("^column ([1-9][0-9]*): ");
  for (const LayoutSample& s : malformed) {
    Parsed p;
    std::optional<Error> error = parse(s.text, s.shape, p);
    ASSERT_TRUE(error) << sample_name(s)
                       << " parsed; if it is a valid layout, name malformed ones in "
                          "conformance: {malformed_layouts: [...]}";
    EXPECT_EQ(p.layout, nullptr) << "parse wrote *out although it failed";
    EXPECT_STREQ(to_string(error->code), "INVALID_ARGUMENT") << error->message;
    std::string message = error->message.substr(std::string("parse: ").size());
    std::smatch match;
    ASSERT_TRUE(std::regex_search(message, match, column))
        << sample_name(s) << ": the message must start with \"column N: \" (1-based): " << message;
    EXPECT_LE(std::stoull(match[1].str()), s.text.size() + 1)
        << sample_name(s) << ": column past the end of the text: " << message;
  }
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(LayoutMapperSamples);
TESSERA_INSTANTIATE_FOR_PLUGINS(LayoutMapperContract);

}  // namespace tessera::conformance
