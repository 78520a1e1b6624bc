package io.fanout.dist;

import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Training checkpoints in a directory shared by all workers: {@code step-<12 digits>.ckpt}, where
 * the number is the count of global steps completed. Each file is written under a temporary name,
 * forced to disk and renamed atomically, so a reader only ever sees complete checkpoints.
 *
 * <p>Format (little-endian): magic {@code FANOUTCK}, int32 version 1, int32 next epoch, int32 next
 * step within that epoch, int64 global steps done, int32 global batches per step, int64 job
 * fingerprint, int32 array count, then per array an int32 length and its floats, then the CRC-32 of
 * everything before it as int64.
 */
public final class Checkpoints {
  static final long MAGIC = 0x4B4354554F4E4146L; // "FANOUTCK" little-endian
  private static final int VERSION = 1;
  private static final int KEEP = 2;

  private final Path dir;

  public Checkpoints(Path dir) {
    this.dir = dir;
  }

  public Path dir() {
    return dir;
  }

  /** Where training resumes: the position after the last completed global step. */
  public record Position(int epoch, int step, long globalStep) {
    public static final Position START = new Position(0, 0, 0);
  }

  /** Publishes a checkpoint of {@code state} taken after {@code pos.globalStep()} steps. */
  public void write(Position pos, int batchesPerStep, long fingerprint, float[][] state) {
    long bytes = 8 + 4 * 4 + 8 + 8 + 4 + 8;
    for (float[] a : state) {
      bytes += 4 + 4L * a.length;
    }
    Path target = dir.resolve(name(pos.globalStep()));
    Path tmp = dir.resolve("." + name(pos.globalStep()) + ".tmp-" + ProcessHandle.current().pid());
    try {
      Files.createDirectories(dir);
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        CRC32 crc = new CRC32();
        buf.putLong(MAGIC).putInt(VERSION).putInt(pos.epoch()).putInt(pos.step());
        buf.putLong(pos.globalStep()).putInt(batchesPerStep).putLong(fingerprint);
        buf.putInt(state.length);
        for (float[] a : state) {
          buf = room(ch, buf, crc, 4);
          buf.putInt(a.length);
          for (float v : a) {
            buf = room(ch, buf, crc, 4);
            buf.putFloat(v);
          }
        }
        flush(ch, buf, crc);
        buf.putLong(crc.getValue());
        buf.flip();
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        if (ch.size() != bytes) {
          throw new IllegalStateException("checkpoint size " + ch.size() + " != " + bytes);
        }
      }
      try {
        io.fanout.store.AtomicFiles.replace(tmp, target);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      prune();
    } catch (IOException e) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // best effort
      }
      throw new UncheckedIOException("could not write checkpoint " + target + ": " + e, e);
    }
  }

  /**
   * Restores the newest checkpoint into {@code state} (whose array lengths must match) and returns
   * its position, or {@link Position#START} when there is none.
   *
   * @throws InvalidInputException when the newest checkpoint is corrupt or belongs to another job
   */
  public Position restoreLatest(int batchesPerStep, long fingerprint, float[][] state) {
    List<Path> files = list();
    if (files.isEmpty()) {
      return Position.START;
    }
    Path f = files.get(files.size() - 1);
    try {
      byte[] all = Files.readAllBytes(f);
      ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
      if (all.length < 48 || b.getLong(0) != MAGIC) {
        throw new InvalidInputException(
            "checkpoint "
                + f
                + ": not a Fanout checkpoint (bad magic or "
                + all.length
                + " bytes)");
      }
      CRC32 crc = new CRC32();
      crc.update(all, 0, all.length - 8);
      long stored = b.getLong(all.length - 8);
      if (stored != crc.getValue()) {
        throw new InvalidInputException(
            "checkpoint " + f + ": CRC-32 is " + crc.getValue() + ", file says " + stored);
      }
      b.position(8);
      int version = b.getInt();
      if (version != VERSION) {
        throw new InvalidInputException(
            "checkpoint " + f + ": version " + version + ", expected " + VERSION);
      }
      int epoch = b.getInt();
      int step = b.getInt();
      long global = b.getLong();
      int g = b.getInt();
      long fp = b.getLong();
      if (g != batchesPerStep || fp != fingerprint) {
        throw new InvalidInputException(
            "checkpoint "
                + f
                + " belongs to another training job (global batches per step "
                + g
                + ", fingerprint "
                + Long.toHexString(fp)
                + "; this job: "
                + batchesPerStep
                + ", "
                + Long.toHexString(fingerprint)
                + "); use a fresh output path");
      }
      int n = b.getInt();
      if (n != state.length) {
        throw new InvalidInputException(
            "checkpoint " + f + ": " + n + " state arrays, the model has " + state.length);
      }
      for (int i = 0; i < n; i++) {
        int len = b.getInt();
        if (len != state[i].length) {
          throw new InvalidInputException(
              "checkpoint "
                  + f
                  + ": state array "
                  + i
                  + " has "
                  + len
                  + " floats, the model has "
                  + state[i].length);
        }
        b.asFloatBuffer().get(state[i]);
        b.position(b.position() + 4 * len);
      }
      return new Position(epoch, step, global);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read checkpoint " + f + ": " + e, e);
    }
  }

  /** Published checkpoints, oldest first. */
  public List<Path> list() {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "step-*.ckpt")) {
      for (Path p : ds) {
        out.add(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not list checkpoints in " + dir + ": " + e, e);
    }
    Collections.sort(out); // fixed-width numbers sort by step
    return out;
  }

  static String name(long globalStep) {
    return String.format("step-%012d.ckpt", globalStep);
  }

  private void prune() throws IOException {
    List<Path> files = list();
    for (int i = 0; i + KEEP < files.size(); i++) {
      Files.deleteIfExists(files.get(i));
    }
  }

  private static ByteBuffer room(FileChannel ch, ByteBuffer buf, CRC32 crc, int need)
      throws IOException {
    if (buf.remaining() < need) {
      flush(ch, buf, crc);
    }
    return buf;
  }

  private static void flush(FileChannel ch, ByteBuffer buf, CRC32 crc) throws IOException {
    buf.flip();
    crc.update(buf.duplicate());
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
  }
}
