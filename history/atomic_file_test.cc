#include "history/atomic_file.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace linfault::history {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("linfault-atomic-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  static std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(directory_), fs::directory_iterator()));
  }

  fs::path directory_;
};

TEST_F(AtomicFileTest, WritesAndReplacesWholeFiles) {
  const fs::path path = directory_ / "out.json";
  write_file_atomically(path, "first");
  EXPECT_EQ(contents(path), "first");
  write_file_atomically(path, "second, longer");
  EXPECT_EQ(contents(path), "second, longer");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, AnUncommittedWriterLeavesThePreviousFileAndNoTemporary) {
  const fs::path path = directory_ / "report.html";
  write_file_atomically(path, "good report");
  {
    AtomicFileWriter writer(path);
    writer.stream() << "half of a new rep";
    EXPECT_EQ(entries(), 2u);  // the file and the temporary
    EXPECT_EQ(contents(path), "good report");
  }
  EXPECT_EQ(contents(path), "good report");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, CommitPublishesTheStreamedText) {
  const fs::path path = directory_ / "gen.json";
  AtomicFileWriter writer(path);
  for (int i = 0; i < 1000; ++i) writer.stream() << i << '\n';
  EXPECT_FALSE(fs::exists(path));
  writer.commit();
  const std::string text = contents(path);
  EXPECT_EQ(text.substr(0, 4), "0\n1\n");
  EXPECT_EQ(text.substr(text.size() - 4), "999\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, AMissingDirectoryIsAnErrorNamingThePath) {
  const fs::path path = directory_ / "missing" / "out.json";
  try {
    write_file_atomically(path, "x");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST(TemporaryFileName, RecognizesOnlyTheWritersTemporaries) {
  EXPECT_TRUE(is_temporary_file_name("run-3.json.tmp.1234.0"));
  EXPECT_TRUE(is_temporary_file_name("summary.json.tmp.7.12"));
  EXPECT_FALSE(is_temporary_file_name("run-3.json"));
  EXPECT_FALSE(is_temporary_file_name("notes.tmp.txt"));
  EXPECT_FALSE(is_temporary_file_name("x.tmp.12"));
  EXPECT_FALSE(is_temporary_file_name("x.tmp.12."));
  EXPECT_FALSE(is_temporary_file_name("x.tmp.a.1"));
}

}  // namespace
}  // namespace linfault::history
