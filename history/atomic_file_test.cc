#include "history/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace linfault::history {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("linfault_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void touch(const std::string& name) { std::ofstream(dir_ / name) << "x"; }
  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesTheWholeTextAndLeavesNoTemporary) {
  for (Durability durability : {Durability::kDurable, Durability::kProcessSafe}) {
    write_file_atomically(dir_ / "a.json", "{\"n\": 1}\n", durability);
    write_file_atomically(dir_ / "a.json", "{\"n\": 2}\n", durability);  // replaced
    std::ifstream in(dir_ / "a.json");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "{\"n\": 2}\n");
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      ++files;
      EXPECT_EQ(entry.path().filename(), "a.json");
    }
    EXPECT_EQ(files, 1u);
  }
  EXPECT_THROW(write_file_atomically(dir_ / "missing" / "a.json", "x"), std::runtime_error);
}

TEST_F(AtomicFileTest, TemporariesAreHiddenAndRecognized) {
  EXPECT_TRUE(is_atomic_temporary(".t-1.json.tmp.123.0"));
  EXPECT_TRUE(is_atomic_temporary(".summary.json.tmp.99999.17"));
  for (const char* name : {"t-1.json", "t-1.json.tmp.123.0", ".t-1.json.tmp.123", ".t.tmp.x.1",
                           ".t.tmp.1.", ".tmp.1.2", ".t.tmp.0.1", ".hidden.json"}) {
    EXPECT_FALSE(is_atomic_temporary(name)) << name;
  }
}

TEST_F(AtomicFileTest, RemovesOnlyTheTemporariesOfWritersThatAreGone) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // reaped: its id names no process now
  const std::string dead = ".r.json.tmp." + std::to_string(child) + ".0";
  const std::string alive = ".r.json.tmp." + std::to_string(::getpid()) + ".0";
  touch(dead);
  touch(alive);
  touch("r.json");
  touch(".r.json.tmp.x");  // not a temporary's name: left alone
  EXPECT_EQ(remove_stale_temporaries(dir_), 1u);
  EXPECT_FALSE(fs::exists(dir_ / dead));
  EXPECT_TRUE(fs::exists(dir_ / alive));
  EXPECT_TRUE(fs::exists(dir_ / "r.json"));
  EXPECT_TRUE(fs::exists(dir_ / ".r.json.tmp.x"));
  EXPECT_EQ(remove_stale_temporaries(dir_ / "no such directory"), 0u);
}

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST_F(AtomicFileTest, AnUncommittedWriterLeavesThePreviousFileAndNoTemporary) {
  const fs::path path = dir_ / "report.html";
  write_file_atomically(path, "good report");
  {
    AtomicFileWriter writer(path);
    writer.stream() << "half of a new rep";
    EXPECT_EQ(entries(dir_), 2u);  // the file and the temporary
    EXPECT_EQ(contents(path), "good report");
  }
  EXPECT_EQ(contents(path), "good report");
  EXPECT_EQ(entries(dir_), 1u);
}

TEST_F(AtomicFileTest, CommitPublishesTheStreamedText) {
  const fs::path path = dir_ / "gen.json";
  AtomicFileWriter writer(path);
  for (int i = 0; i < 1000; ++i) writer.stream() << i << '\n';
  EXPECT_FALSE(fs::exists(path));
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_TRUE(is_atomic_temporary(entry.path().filename().string())) << entry.path();
  }
  writer.commit();
  const std::string text = contents(path);
  EXPECT_EQ(text.substr(0, 4), "0\n1\n");
  EXPECT_EQ(text.substr(text.size() - 4), "999\n");
  EXPECT_EQ(entries(dir_), 1u);
  EXPECT_THROW(AtomicFileWriter(dir_ / "missing" / "x.json"), std::runtime_error);
}

// A FIFO stands for the devices a user may name as output (/dev/stdout, /dev/null): renaming a
// temporary over one would replace it with a regular file.
TEST_F(AtomicFileTest, ADeviceOrFifoIsWrittenInPlaceAndStaysWhatItIs) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (int streamed = 0; streamed < 2; ++streamed) {
    SCOPED_TRACE(streamed ? "AtomicFileWriter" : "write_file_atomically");
    std::string received;
    std::thread reader([&] { received = contents(fifo); });
    if (streamed) {
      AtomicFileWriter writer(fifo);
      writer.stream() << "streamed\n";
      writer.commit();
    } else {
      write_file_atomically(fifo, "written\n");
    }
    reader.join();
    EXPECT_EQ(received, streamed ? "streamed\n" : "written\n");
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
    EXPECT_EQ(entries(dir_), 1u);  // no temporary left beside it
  }
}

TEST_F(AtomicFileTest, ASymbolicLinkStaysALinkToTheReplacedFile) {
  const fs::path file = dir_ / "real.json";
  const fs::path link = dir_ / "link.json";
  write_file_atomically(file, "old");
  fs::create_symlink(file.filename(), link);
  write_file_atomically(link, "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(contents(file), "new");
  AtomicFileWriter writer(link);
  writer.stream() << "streamed";
  writer.commit();
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(contents(file), "streamed");
  EXPECT_EQ(entries(dir_), 2u);
}

}  // namespace
}  // namespace linfault::history
