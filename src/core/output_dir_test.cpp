#include "core/output_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "testing/scratch_dir.hpp"
#include "testing/text_files.hpp"

namespace kubesim {
namespace {
namespace fs = std::filesystem;

class OutputDirectoryTest : public ::testing::Test {
 protected:
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  testing::ScratchDir scratch_;
  const fs::path root_ = scratch_.path();
};

TEST_F(OutputDirectoryTest, CommitPutsTheWholeRunInPlace) {
  const fs::path out = root_ / "run";
  {
    OutputDirectory dir(out.string());
    write(fs::path(dir.staging()) / "jobs.csv", "a");
    EXPECT_FALSE(fs::exists(out));  // nothing appears before commit
    dir.commit();
  }
  EXPECT_EQ(testing::read_file(out / "jobs.csv"), "a");
  EXPECT_TRUE(fs::exists(out / OutputDirectory::kMarker));
}

TEST_F(OutputDirectoryTest, ANewRunReplacesTheOldOneWhole) {
  const fs::path out = root_ / "run";
  {
    OutputDirectory dir(out.string());
    write(fs::path(dir.staging()) / "old-only.csv", "old");
    write(fs::path(dir.staging()) / "jobs.csv", "old");
    dir.commit();
  }
  {
    OutputDirectory dir(out.string());
    write(fs::path(dir.staging()) / "jobs.csv", "new");
    dir.commit();
  }
  EXPECT_EQ(testing::read_file(out / "jobs.csv"), "new");
  EXPECT_FALSE(fs::exists(out / "old-only.csv"));  // no mix of two runs
  for (const auto& e : fs::directory_iterator(root_))  // no staging folder left behind
    EXPECT_EQ(e.path().filename().string().find(".run.staging."), std::string::npos) << e.path();
}

TEST_F(OutputDirectoryTest, AnUncommittedRunLeavesTheOldOutputsAsTheyWere) {
  const fs::path out = root_ / "run";
  {
    OutputDirectory dir(out.string());
    write(fs::path(dir.staging()) / "jobs.csv", "old");
    dir.commit();
  }
  {
    OutputDirectory dir(out.string());
    write(fs::path(dir.staging()) / "jobs.csv", "half");
  }  // the run failed: no commit
  EXPECT_EQ(testing::read_file(out / "jobs.csv"), "old");
}

TEST_F(OutputDirectoryTest, StaleStagingOfAKilledRunIsRemoved) {
  const fs::path stale = root_ / ".run.staging.999999";
  fs::create_directories(stale);
  write(stale / "jobs.csv", "partial");
  OutputDirectory dir((root_ / "run").string());
  EXPECT_FALSE(fs::exists(stale));
}

TEST_F(OutputDirectoryTest, TwoRunsCannotWriteOneOutputAtOnce) {
  OutputDirectory first((root_ / "run").string());
  try {
    OutputDirectory second((root_ / "run").string());
    FAIL() << "the second run got the lock";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another kubesim run is writing"), std::string::npos) << e.what();
  }
}

// Issue 32: the lock file is removed after the run; a lock file left by a killed run is taken
// over (flock: the kernel released its lock) and removed too.
TEST_F(OutputDirectoryTest, TheLockFileIsRemovedAfterTheRun) {
  write(root_ / ".run.lock", "");  // as a kill -9 leaves it
  {
    OutputDirectory dir((root_ / "run").string());
    EXPECT_TRUE(fs::exists(root_ / ".run.lock"));
    dir.commit();
  }
  EXPECT_FALSE(fs::exists(root_ / ".run.lock"));
  FileLock lock;
  ASSERT_TRUE(lock.try_lock((root_ / "x.lock").string()));
  FileLock other;
  EXPECT_FALSE(other.try_lock((root_ / "x.lock").string()));
  lock.unlock();
  EXPECT_FALSE(fs::exists(root_ / "x.lock"));
  EXPECT_TRUE(other.try_lock((root_ / "x.lock").string()));
}

TEST_F(OutputDirectoryTest, RefusesToReplaceAFolderKubesimDidNotWrite) {
  fs::create_directories(root_ / "home");
  write(root_ / "home" / "thesis.tex", "precious");
  EXPECT_THROW(OutputDirectory((root_ / "home").string()), std::runtime_error);
  EXPECT_EQ(testing::read_file(root_ / "home" / "thesis.tex"), "precious");
  fs::create_directories(root_ / "older-run");  // a run of a version before the marker
  write(root_ / "older-run" / "jobs.csv", "old");
  write(root_ / "older-run" / "pods.csv", "old");
  OutputDirectory older((root_ / "older-run").string());
  older.commit();
  EXPECT_FALSE(fs::exists(root_ / "older-run" / "jobs.csv"));
  fs::create_directories(root_ / "empty");
  OutputDirectory ok((root_ / "empty").string());  // an empty folder may be used
  ok.commit();
  EXPECT_TRUE(fs::exists(root_ / "empty" / OutputDirectory::kMarker));
}

}  // namespace
}  // namespace kubesim
