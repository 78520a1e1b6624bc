package io.fanout.train;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Candidate pairs spilled to a local temporary file as they arrive ({@link Writer}), in order, and
 * read back in chunks of at most {@code chunk} pairs: a pairs table passes through the driver
 * without being held in its memory. Each pair is its two dense ids (int32), then its two original
 * ids (int64 for {@code long} and {@code int} ids; for {@code string} ids their UTF-8 length as
 * int32 and bytes). The file is deleted on {@link #close}.
 */
public final class CandidatePairFile implements CandidatePairChunks {
  /**
   * Pairs a chunk holds by default: a multiple of the MLP decoder's own chunk ({@link
   * LinkStep#SCORE_CHUNK}), so that scoring by chunks adds no chunk boundary of its own.
   */
  public static final int CHUNK = LinkStep.SCORE_CHUNK * 16;

  private final Path file;
  private final String idType;
  private final long size;
  private final int chunk;

  private CandidatePairFile(Path file, String idType, long size, int chunk) {
    this.file = file;
    this.idType = idType;
    this.size = size;
    this.chunk = chunk;
  }

  /**
   * A writer of pairs whose original ids have type {@code idType} ({@code long}, {@code int} or
   * {@code string}), read back in chunks of {@code chunk} pairs.
   */
  public static Writer create(String idType, int chunk) {
    if (!idType.equals("long") && !idType.equals("int") && !idType.equals("string")) {
      throw new IllegalArgumentException("id type must be long, int or string, got " + idType);
    }
    if (chunk < 1) {
      throw new IllegalArgumentException("chunk of " + chunk + " pairs");
    }
    try {
      Path file = Files.createTempFile("fanout-pairs-", ".bin");
      return new Writer(file, idType, chunk);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a file for the candidate pairs", e);
    }
  }

  /** Appends pairs in order; {@link #finish} gives the file to read, else close deletes it. */
  public static final class Writer implements AutoCloseable {
    private final Path file;
    private final String idType;
    private final int chunk;
    private final DataOutputStream out;
    private long count;
    private boolean finished;

    private Writer(Path file, String idType, int chunk) throws IOException {
      this.file = file;
      this.idType = idType;
      this.chunk = chunk;
      this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)));
    }

    /** A pair of dense ids {@code src}, {@code dst} given by numeric ids (type long or int). */
    public void add(int src, int dst, long srcId, long dstId) {
      requireType(false);
      try {
        out.writeInt(src);
        out.writeInt(dst);
        out.writeLong(srcId);
        out.writeLong(dstId);
      } catch (IOException e) {
        throw failed(e);
      }
      count++;
    }

    /** A pair of dense ids {@code src}, {@code dst} given by string ids. */
    public void add(int src, int dst, String srcId, String dstId) {
      requireType(true);
      try {
        out.writeInt(src);
        out.writeInt(dst);
        writeString(srcId);
        writeString(dstId);
      } catch (IOException e) {
        throw failed(e);
      }
      count++;
    }

    private void writeString(String s) throws IOException {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      out.writeInt(b.length);
      out.write(b);
    }

    private void requireType(boolean text) {
      if (text != idType.equals("string")) {
        throw new IllegalArgumentException("pairs of id type " + idType);
      }
    }

    private UncheckedIOException failed(IOException e) {
      return new UncheckedIOException("cannot write the candidate pairs to " + file, e);
    }

    /** The pairs written, to read back. */
    public CandidatePairFile finish() {
      try {
        out.close();
      } catch (IOException e) {
        throw failed(e);
      }
      finished = true;
      return new CandidatePairFile(file, idType, count, chunk);
    }

    /** Deletes the file unless {@link #finish} handed it on. */
    @Override
    public void close() {
      if (!finished) {
        try {
          out.close();
        } catch (IOException e) {
          // deleted below all the same
        }
        deleteQuietly(file);
      }
    }
  }

  @Override
  public long size() {
    return size;
  }

  /** The spill file, while open. */
  Path file() {
    return file;
  }

  @Override
  public void forEach(Chunk c) {
    boolean text = idType.equals("string");
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
      long first = 0;
      do {
        int n = (int) Math.min(chunk, size - first);
        int[] src = new int[n];
        int[] dst = new int[n];
        long[] srcLong = text ? null : new long[n];
        long[] dstLong = text ? null : new long[n];
        String[] srcText = text ? new String[n] : null;
        String[] dstText = text ? new String[n] : null;
        for (int i = 0; i < n; i++) {
          src[i] = in.readInt();
          dst[i] = in.readInt();
          if (text) {
            srcText[i] = readString(in);
            dstText[i] = readString(in);
          } else {
            srcLong[i] = in.readLong();
            dstLong[i] = in.readLong();
          }
        }
        c.accept(
            first,
            text
                ? CandidatePairs.ofStrings(src, dst, srcText, dstText)
                : CandidatePairs.ofNumbers(src, dst, idType, srcLong, dstLong));
        first += n;
      } while (first < size);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the candidate pairs back from " + file, e);
    }
  }

  private static String readString(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Deletes the file. */
  @Override
  public void close() {
    deleteQuietly(file);
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a temporary file: the system's clean-up takes it
    }
  }
}
