package io.fanout.store;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exclusive lock of one output's writer (a graph store, shards, a model dir, predictions,
 * embeddings). The lock file is {@code .NAME.lock} in the output's parent directory, so it exists
 * before the output does, survives the output's atomic replace and is never part of it. It holds an
 * OS lock ({@link FileChannel#tryLock}) for as long as the writer runs, and the line naming the
 * holder (pid, host, command, start time). The OS drops the lock when the holder dies; {@link
 * #close} drops it and removes the file. Writers in one JVM are told apart by a JVM-wide registry,
 * as the OS lock does not separate them.
 */
public final class OutputLock implements AutoCloseable {
  private static final ConcurrentHashMap<Path, String> HELD = new ConcurrentHashMap<>();

  private static final OutputLock NONE = new OutputLock(null, null, null, null, null);

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private final String holder;

  /** The outermost directory this lock created for its file, or null: removed again if empty. */
  private final Path createdDir;

  private boolean closed;

  private OutputLock(
      Path file, FileChannel channel, FileLock lock, String holder, Path createdDir) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
    this.holder = holder;
    this.createdDir = createdDir;
  }

  /**
   * Takes the writer's lock of {@code out} ({@code null}: no output, a lock that holds nothing).
   *
   * @param option what the output is, for messages (e.g. {@code model dir})
   * @throws InvalidInputException when another writer holds it (naming that writer), or the lock
   *     file cannot be created
   */
  public static OutputLock acquire(Path out, String option) {
    if (out == null) {
      return NONE;
    }
    Path file = lockFile(out);
    String holder = holderLine();
    String other = HELD.putIfAbsent(file, holder);
    if (other != null) {
      throw refused(out, option, other);
    }
    try {
      OutputLock taken = lockFile(out, option, file, holder);
      if (taken == null) {
        throw refused(out, option, readHolder(file));
      }
      return taken;
    } catch (RuntimeException | Error e) {
      HELD.remove(file, holder);
      throw e;
    }
  }

  /** The lock file of {@code out}: {@code .NAME.lock} beside it. */
  static Path lockFile(Path out) {
    Path abs = out.toAbsolutePath().normalize();
    Path parent = abs.getParent();
    String name = abs.getFileName() == null ? "root" : abs.getFileName().toString();
    if (parent == null) {
      parent = abs;
    } else if (Files.isDirectory(parent)) {
      try {
        parent = parent.toRealPath();
      } catch (IOException e) {
        // keep the spelled path
      }
    }
    return parent.resolve("." + name + ".lock");
  }

  /** " (REASON); ADVICE" for a failure the user can fix, else " (" + the exception + ")". */
  private static String why(IOException e, String option) {
    IoFailure kind = IoFailure.of(e);
    return kind == null
        ? " (" + e + ")"
        : " ("
            + kind.reason()
            + "); "
            + (option.startsWith("--")
                ? kind.advice().replace("another path", "another " + option)
                : kind.advice());
  }

  private static OutputLock lockFile(Path out, String option, Path file, String holder) {
    Path createdDir = null;
    for (Path d = file.getParent(); d != null && !Files.exists(d); d = d.getParent()) {
      createdDir = d;
    }
    try {
      Files.createDirectories(file.getParent());
    } catch (IOException e) {
      throw new InvalidInputException(
          option
              + " "
              + out
              + ": cannot create its parent directory "
              + file.getParent()
              + why(e, option),
          e);
    }
    String line = holder + "\n";
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    // A holder removes the file when it ends: a lock won on a removed file is retried.
    for (int attempt = 0; attempt < 100; attempt++) {
      FileChannel ch;
      try {
        ch =
            FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      } catch (IOException e) {
        throw new InvalidInputException(
            option + " " + out + ": cannot create the writer's lock file " + file + why(e, option),
            e);
      }
      try {
        FileLock l = ch.tryLock();
        if (l == null) {
          ch.close();
          return null;
        }
        ch.truncate(0);
        ch.write(ByteBuffer.wrap(bytes), 0);
        ch.force(false);
        if (line.equals(readOrEmpty(file))) {
          return new OutputLock(file, ch, l, holder, createdDir);
        }
        ch.close();
      } catch (OverlappingFileLockException e) {
        closeQuietly(ch);
        return null;
      } catch (IOException e) {
        closeQuietly(ch);
        throw new InvalidInputException(
            option + " " + out + ": cannot write the writer's lock file " + file + why(e, option),
            e);
      }
    }
    return null;
  }

  private static InvalidInputException refused(Path out, String option, String holder) {
    return new InvalidInputException(
        option
            + " "
            + out
            + ": another writer is writing it ("
            + (holder.isBlank() ? "holder unknown" : holder)
            + "); wait for it to end, or write elsewhere");
  }

  private static String readHolder(Path file) {
    return readOrEmpty(file).strip();
  }

  private static String readOrEmpty(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static String holderLine() {
    ProcessHandle self = ProcessHandle.current();
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "unknown";
    }
    String command = self.info().commandLine().orElse(self.info().command().orElse("java"));
    if (command.length() > 200) {
      command = command.substring(0, 200) + "...";
    }
    return "pid "
        + self.pid()
        + " on "
        + host
        + ", thread "
        + Thread.currentThread().getName()
        + ", started "
        + Instant.now()
        + ", command "
        + command.replace('\n', ' ')
        + ", run "
        + UUID.randomUUID();
  }

  /** The line naming this lock's holder. */
  String holder() {
    return holder;
  }

  /** Removes the lock file and drops the lock. */
  @Override
  public synchronized void close() {
    if (file == null || closed) {
      return;
    }
    closed = true;
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // left for the next writer, who takes it over
    }
    removeCreatedDirsIfEmpty();
    try {
      lock.release();
    } catch (IOException e) {
      // closing the channel drops it
    }
    closeQuietly(channel);
    HELD.remove(file, holder);
  }

  /** A writer that failed before writing leaves no directory behind that only its lock needed. */
  private void removeCreatedDirsIfEmpty() {
    if (createdDir == null) {
      return;
    }
    for (Path d = file.getParent(); d != null && d.startsWith(createdDir); d = d.getParent()) {
      try {
        Files.delete(d);
      } catch (IOException e) {
        return; // not empty (the writer published into it) or not ours to remove
      }
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      // nothing to do
    }
  }
}
