package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.conf.FanoutConfigException;
import io.fanout.store.InvalidInputException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one judge of a command's failure: what a user can fix is one line naming the subject and what
 * to change, however deep Spark or Fanout wrapped it; anything else is a bug, with its trace. The
 * failures are built as the JDK, Hadoop and Spark throw them, so that no disk has to fill.
 */
class CommandFailureTest {
  @TempDir Path tmp;

  /** As Spark's driver rethrows a task's failure: wrapped, with the task's trace in its message. */
  private static RuntimeException fromATask(Throwable cause) {
    return new IllegalStateException(
        new RuntimeException(
            "Job aborted due to stage failure: Task 0 in stage 0.0 failed 1 times, most recent"
                + " failure: "
                + cause
                + "\n\tat some.Frame(Frame.java:1)\nDriver stacktrace:",
            cause));
  }

  private static String userLine(Throwable t) {
    CommandFailure f = CommandFailure.of(t);
    assertThat(f.userFixable()).as(String.valueOf(t)).isTrue();
    assertThat(f.message()).doesNotContain("\n").doesNotContain("\tat ");
    return f.message();
  }

  @Test
  void fanoutsOwnRefusalsAreFoundUnderSparksWrapping() {
    assertThat(userLine(fromATask(new InvalidInputException("vertices v.csv: duplicate id 1"))))
        .isEqualTo("vertices v.csv: duplicate id 1");
    assertThat(userLine(new FanoutConfigException("option 'lr' of train is bad")))
        .isEqualTo("option 'lr' of train is bad");
    // a Fanout error whose object did not survive the task's serialization: its text did
    assertThat(
            userLine(
                new RuntimeException(
                    "Lost task 0.0: io.fanout.store.InvalidInputException: edges e.csv: bad row 3\n"
                        + "\tat x.Y(Y.java:1)")))
        .isEqualTo("edges e.csv: bad row 3");
  }

  @Test
  void aFullDiskNamesWhatWasWrittenWhereAndWhatToChange() {
    IOException full =
        new FileSystemException("/data/model/checkpoint.bin.tmp", null, "No space left on device");
    String line =
        userLine(
            fromATask(
                new UncheckedIOException(
                    "cannot write checkpoint.bin into /data/model (it needs about 17 MiB free)",
                    full)));
    assertThat(line)
        .isEqualTo(
            "cannot write checkpoint.bin into /data/model (it needs about 17 MiB free):"
                + " /data/model/checkpoint.bin.tmp: no space left on the device; free space there,"
                + " or write elsewhere");
    // a stream's full disk has no path of its own: the wrapping message gives it
    assertThat(
            userLine(
                new UncheckedIOException(
                    "cannot write /out/v-0001/csr/part-00000.csr",
                    new IOException("No space left on device"))))
        .isEqualTo(
            "cannot write /out/v-0001/csr/part-00000.csr: no space left on the device; free space"
                + " there, or write elsewhere");
    // Hadoop's local file system throws an Error around it
    assertThat(userLine(new Error("FSError", new IOException("Disk quota exceeded"))))
        .contains("no space left on the device");
  }

  @Test
  void permissionsReadOnlyMountsAndFilesInTheWayAreTheUsers() throws IOException {
    assertThat(userLine(new AccessDeniedException("/srv/out/.lock")))
        .isEqualTo(
            "/srv/out/.lock: permission denied; give this user access to it, or choose another"
                + " path");
    assertThat(userLine(new FileSystemException("/sys/out", null, "Operation not permitted")))
        .startsWith("/sys/out: permission denied");
    assertThat(userLine(new FileSystemException("/mnt/ro/out", null, "Read-only file system")))
        .isEqualTo("/mnt/ro/out: on a read-only file system; write elsewhere");
    assertThat(userLine(new java.io.FileNotFoundException("/mnt/ro/x (Read-only file system)")))
        .isEqualTo("/mnt/ro/x: on a read-only file system; write elsewhere");
    Path file = Files.writeString(tmp.resolve("afile"), "x");
    assertThat(userLine(new FileAlreadyExistsException(file.toString())))
        .startsWith(file + ": is a file, not a folder; remove or rename that file");
    // a file given where a folder is read: the line names the file, once
    assertThat(
            userLine(
                new UncheckedIOException(
                    "cannot read " + file.resolve("manifest.json"),
                    new FileSystemException(
                        file.resolve("manifest.json").toString(), null, "Not a directory"))))
        .isEqualTo(
            "cannot read "
                + file.resolve("manifest.json")
                + ": "
                + file
                + ": is a file, not a folder; remove or rename that file, or choose another path");
    assertThat(userLine(new NoSuchFileException("/data/store/v-0009")))
        .startsWith("/data/store/v-0009: no such file or folder");
    assertThat(userLine(new IOException("Mkdirs failed to create file:/x/y")))
        .startsWith("Mkdirs failed to create file:/x/y: cannot create the folder");
  }

  @Test
  void portsAndSparksHeapAdviceAreTheUsers() {
    assertThat(userLine(fromATask(new BindException("Address already in use"))))
        .contains("Address already in use")
        .contains("--dist-port");
    String heap =
        userLine(
            new IllegalArgumentException(
                "System memory 259522560 must be at least 471859200. Please increase heap size"
                    + " using the --driver-memory option or spark.driver.memory in Spark"
                    + " configuration."));
    assertThat(heap).contains("FANOUT_JAVA_OPTS").contains("System memory 259522560");
    assertThat(heap.replace("takes no --driver-memory", "")).doesNotContain("--driver-memory");
    assertThat(userLine(new RuntimeException(new OutOfMemoryError("Java heap space"))))
        .contains("ran out of Java heap")
        .contains("FANOUT_JAVA_OPTS");
  }

  @Test
  void aBarrierStagesFailureKnownOnlyAsTextIsJudgedByTheNamesInIt() {
    // Spark fails a barrier stage with the task's failure in its message only, no cause
    String stage =
        "Job aborted due to stage failure: ShuffleMapStage 0 has failed the maximum allowable"
            + " number of times: 4. Most recent failure reason: Stage failed because barrier task"
            + " finished unsuccessfully.\njava.io.UncheckedIOException: distributed worker 0 on"
            + " localhost failed: java.net.BindException: cannot listen on localhost:45678"
            + " (Address already in use)\n\tat x.Y(Y.java:1)";
    assertThat(userLine(new IllegalStateException(new RuntimeException(stage))))
        .startsWith("cannot listen on localhost:45678 (Address already in use): ")
        .contains("--dist-port");
    assertThat(
            userLine(
                new RuntimeException(
                    "stage failed\njava.nio.file.FileSystemException: /m/checkpoint.bin.tmp: No"
                        + " space left on device")))
        .isEqualTo(
            "/m/checkpoint.bin.tmp: no space left on the device; free space there, or write"
                + " elsewhere");
    assertThat(
            CommandFailure.of(
                    new RuntimeException("stage failed\njava.lang.NullPointerException: x"))
                .userFixable())
        .isFalse();
  }

  @Test
  void anythingElseIsABugWithItsTraceAndExitOne() {
    assertThat(CommandFailure.of(new NullPointerException("x")).userFixable()).isFalse();
    assertThat(CommandFailure.of(fromATask(new ArrayIndexOutOfBoundsException(3))).userFixable())
        .isFalse();
    // a file created twice by racing writers is not a path the user got wrong
    Path dir = tmp.resolve("dir");
    assertThat(CommandFailure.of(new FileAlreadyExistsException(tmp.toString())).userFixable())
        .isFalse();
    assertThat(dir).doesNotExist();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        FanoutCli.report(
            Commands.find("inspect"),
            fromATask(new NegativeArraySizeException("-1413967289")),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = err.toString(StandardCharsets.UTF_8);
    assertThat(code).isEqualTo(1);
    assertThat(text).startsWith("fanout inspect: failed: ").contains("\tat ");
    List<String> lines = text.strip().lines().toList();
    assertThat(lines.get(lines.size() - 1)).isEqualTo("fanout inspect: " + CommandFailure.BUG_NOTE);
  }

  @Test
  void aUserFailureIsOneLineAndExitTwo() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        FanoutCli.report(
            Commands.find("inspect"),
            fromATask(new FileSystemException("/ro/out", null, "Read-only file system")),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "fanout inspect: error: /ro/out: on a read-only file system; write elsewhere"
                + System.lineSeparator());
  }
}
