package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An output path the file system cannot hold is refused by name, and checking creates nothing. */
class OutputPathsTest {
  @TempDir Path tmp;

  static final String LONG = "a".repeat(300);

  @Test
  void aNameTooLongForTheFileSystemIsRefused() {
    Path p = tmp.resolve(LONG);
    assertThatThrownBy(() -> OutputPaths.check(p, "--output"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--output " + p + ": the name 'aaaaaaaaaaaaaaaa...' in it is 300")
        .hasMessageContaining("at most 255");
    // below a folder that does not exist yet, where the file system cannot be asked
    Path deep = tmp.resolve("new").resolve(LONG).resolve("model");
    assertThatThrownBy(() -> OutputPaths.check(deep, "--model-dir"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--model-dir " + deep);
  }

  @Test
  void theFileSystemsOwnRefusalIsReportedByName() throws IOException {
    Path file = Files.writeString(tmp.resolve("file"), "x");
    Path under = file.resolve("out");
    assertThatThrownBy(() -> OutputPaths.check(under, "--output"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--output " + under + ": cannot use " + under + " (")
        .hasMessageEndingWith("); choose another path");
  }

  @Test
  void usablePathsPassAndNothingIsCreated() throws IOException {
    Path name255 = tmp.resolve("b".repeat(255)).resolve("c");
    assertThat(OutputPaths.check(name255, "--output")).isSameAs(name255);
    assertThat(OutputPaths.check(tmp, "--output")).isSameAs(tmp);
    assertThat(OutputPaths.check(Path.of("relative/out"), "--output"))
        .isEqualTo(Path.of("relative/out"));
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s).isEmpty();
    }
  }

  @Test
  void aFileWhereTheOutputFolderGoesIsRefused() throws IOException {
    Path file = Files.writeString(tmp.resolve("model"), "x");
    assertThatThrownBy(() -> OutputPaths.checkUsable(file, "--model-dir"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "--model-dir "
                + file
                + ": is a file, not a folder; remove it, or choose another --model-dir (the"
                + " output is a folder)");
  }

  @Test
  void aDanglingLinkIsRefusedNamingItsTarget() throws IOException {
    Path link = Files.createSymbolicLink(tmp.resolve("out"), tmp.resolve("gone/away"));
    assertThatThrownBy(() -> OutputPaths.checkUsable(link, "--output"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "--output "
                + link
                + ": is a symbolic link to "
                + tmp.resolve("gone/away")
                + ", which does not exist; create its target, remove the link, or choose another"
                + " --output");
    Path below = link.resolve("store");
    assertThatThrownBy(() -> OutputPaths.checkUsable(below, "--output"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("goes through " + link + " a symbolic link to");
    assertThat(tmp.resolve("gone")).doesNotExist();
  }

  @Test
  void aFolderThisUserCannotWriteIsRefused() throws IOException {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        "root".equals(System.getProperty("user.name")), "root writes regardless of permissions");
    Path dir = Files.createDirectories(tmp.resolve("locked"));
    Files.setPosixFilePermissions(
        dir, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
    try {
      assertThatThrownBy(() -> OutputPaths.checkUsable(dir.resolve("out"), "--output"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("cannot write in " + dir + " (permission denied)");
    } finally {
      Files.setPosixFilePermissions(
          dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @Test
  void aLockFileTheFileSystemRefusesEvenToRootIsRefusedWithTheReason() {
    Path sys = Path.of("/sys");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(sys), "needs Linux's /sys");
    Path out = sys.resolve("fanout-test-out");
    assertThatThrownBy(() -> OutputLock.acquire(out, "--output").close())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--output " + out)
        .hasMessageContaining("permission denied")
        .hasMessageContaining("choose another --output");
  }
}
