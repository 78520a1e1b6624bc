package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The encoding of a store's feature rows and its parameters, stored in {@link
 * StoreLayout#FEATURE_PARAMS} for {@code int8}, {@code int4} and {@code pq} ({@code
 * docs/formats.md}).
 *
 * <ul>
 *   <li>{@code int8}, {@code int4}: per column {@code c}, {@code x = offset[c] + scale[c] * q} with
 *       {@code q} in {@code 0 .. 255} (or {@code 0 .. 15}, two columns per byte, low nibble first).
 *   <li>{@code pq}: the columns cut into groups of {@link #groupSize} (the last may be narrower); a
 *       row stores one byte per group, the index of the group's centroid. Every group has {@link
 *       #centroids} centroids, at {@code codebooks[centroids * g * groupSize + c * width(g) ..]}.
 * </ul>
 *
 * The file: the 64-byte header (magic {@code FNOQNT01}, encoding, dim, group size, groups,
 * centroids), then {@code scale[dim], offset[dim]} or the codebooks, as little-endian float32.
 */
public final class FeatureParams {
  static final int ENCODING = 12;
  static final int DIM = 16;
  static final int GROUP_SIZE = 20;
  static final int GROUPS = 24;
  static final int CENTROIDS = 28;

  public final int encoding;
  public final int dim;
  public final int groupSize;
  public final int centroids;
  private final float[] scale;
  private final float[] offset;
  private final float[] codebooks;

  private FeatureParams(
      int encoding,
      int dim,
      int groupSize,
      int centroids,
      float[] scale,
      float[] offset,
      float[] codebooks) {
    this.encoding = encoding;
    this.dim = dim;
    this.groupSize = groupSize;
    this.centroids = centroids;
    this.scale = scale;
    this.offset = offset;
    this.codebooks = codebooks;
  }

  /** {@code f32} or {@code f16}: no parameters. */
  public static FeatureParams plain(int encoding, int dim) {
    if (encoding != StoreLayout.ENCODING_F32 && encoding != StoreLayout.ENCODING_F16) {
      throw new IllegalArgumentException(StoreLayout.encodingName(encoding) + " has parameters");
    }
    return new FeatureParams(encoding, dim, 0, 0, null, null, null);
  }

  /**
   * {@code int8} or {@code int4} from per-column minima and maxima: {@code offset = min}, {@code
   * scale = (max - min) / levels}, so every value is decoded within {@code scale / 2}.
   */
  public static FeatureParams affine(int encoding, float[] min, float[] max) {
    int levels = levels(encoding);
    int dim = min.length;
    float[] scale = new float[dim];
    float[] offset = new float[dim];
    for (int c = 0; c < dim; c++) {
      offset[c] = min[c];
      scale[c] = max[c] > min[c] ? (float) (((double) max[c] - min[c]) / levels) : 0f;
    }
    return new FeatureParams(encoding, dim, 0, 0, scale, offset, null);
  }

  /**
   * {@code pq} with {@code codebooks[g]} holding group {@code g}'s centroids back to back ({@code
   * centroids * width(g)} floats each); every group has the same number of centroids (1 .. 256).
   */
  public static FeatureParams pq(int dim, int groupSize, int centroids, float[][] codebooks) {
    if (centroids < 1 || centroids > 256) {
      throw new IllegalArgumentException("1 .. 256 centroids per group, got " + centroids);
    }
    float[] flat = new float[centroids * dim];
    for (int g = 0; g < codebooks.length; g++) {
      int w = Math.min(groupSize, dim - g * groupSize);
      if (codebooks[g].length != centroids * w) {
        throw new IllegalArgumentException("group " + g + " codebook has the wrong length");
      }
      System.arraycopy(codebooks[g], 0, flat, centroids * g * groupSize, centroids * w);
    }
    FeatureParams p =
        new FeatureParams(StoreLayout.ENCODING_PQ, dim, groupSize, centroids, null, null, flat);
    if (p.groups() != codebooks.length) {
      throw new IllegalArgumentException(
          codebooks.length + " codebooks for " + p.groups() + " groups");
    }
    return p;
  }

  /** Quantization levels of an affine encoding: 255 for int8, 15 for int4. */
  public static int levels(int encoding) {
    switch (encoding) {
      case StoreLayout.ENCODING_INT8:
        return 255;
      case StoreLayout.ENCODING_INT4:
        return 15;
      default:
        throw new IllegalArgumentException(StoreLayout.encodingName(encoding) + " is not affine");
    }
  }

  /** Whether the encoding keeps parameters in {@link StoreLayout#FEATURE_PARAMS}. */
  public static boolean hasFile(int encoding) {
    return encoding != StoreLayout.ENCODING_F32 && encoding != StoreLayout.ENCODING_F16;
  }

  /** PQ groups ({@code ceil(dim / groupSize)}); 0 for other encodings. */
  public int groups() {
    return groupSize == 0 ? 0 : (dim + groupSize - 1) / groupSize;
  }

  /** Width of PQ group {@code g}. */
  public int width(int g) {
    return Math.min(groupSize, dim - g * groupSize);
  }

  /** Bytes per stored row. */
  public int rowBytes() {
    switch (encoding) {
      case StoreLayout.ENCODING_F32:
        return 4 * dim;
      case StoreLayout.ENCODING_F16:
        return 2 * dim;
      case StoreLayout.ENCODING_INT8:
        return dim;
      case StoreLayout.ENCODING_INT4:
        return (dim + 1) / 2;
      case StoreLayout.ENCODING_PQ:
        return groups();
      default:
        throw new IllegalArgumentException("unknown feature encoding " + encoding);
    }
  }

  /** Per-column scales of an affine encoding (shared, do not modify). */
  public float[] scale() {
    return scale;
  }

  /** Per-column offsets of an affine encoding (shared, do not modify). */
  public float[] offset() {
    return offset;
  }

  /** The flat PQ codebooks (shared, do not modify); see the class comment for the layout. */
  public float[] codebooks() {
    return codebooks;
  }

  /** Writes the parameters file (not for f32 and f16, which have none). */
  public void write(Path file) {
    if (!hasFile(encoding)) {
      throw new IllegalStateException(StoreLayout.encodingName(encoding) + " has no parameters");
    }
    float[][] body = codebooks != null ? new float[][] {codebooks} : new float[][] {scale, offset};
    int floats = 0;
    for (float[] a : body) {
      floats += a.length;
    }
    ByteBuffer b =
        ByteBuffer.allocate(StoreLayout.HEADER_BYTES + 4 * floats).order(ByteOrder.LITTLE_ENDIAN);
    b.put(
        StoreHeader.create(StoreLayout.PARAMS_MAGIC)
            .putInt(ENCODING, encoding)
            .putInt(DIM, dim)
            .putInt(GROUP_SIZE, groupSize)
            .putInt(GROUPS, groups())
            .putInt(CENTROIDS, centroids)
            .toBytes());
    for (float[] a : body) {
      for (float v : a) {
        b.putFloat(v);
      }
    }
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.write(file, b.array());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * Reads the parameters file of a store whose manifest lists it with {@code crc32c}, checking the
   * checksum first (the file is small and every reader depends on all of it).
   *
   * @throws InvalidInputException when the file is missing, damaged (checksum), or does not match
   *     {@code encoding} and {@code dim}; the message names the file and how to recover
   */
  public static FeatureParams read(Path file, String crc32c, int encoding, int dim) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(
          file
              + ": missing (the "
              + StoreLayout.encodingName(encoding)
              + " feature parameters of the store); rerun prepare or quantize");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    String got = Checksums.hex(crc.getValue());
    if (crc32c == null || !crc32c.equals(got)) {
      throw new InvalidInputException(
          file
              + ": damaged feature parameters: CRC32C "
              + got
              + ", the manifest says "
              + crc32c
              + "; rerun prepare or quantize to rebuild the store");
    }
    StoreHeader h =
        StoreHeader.parse(file.toString(), bytes, StoreLayout.PARAMS_MAGIC, bytes.length);
    int enc = h.getInt(ENCODING);
    int d = h.getInt(DIM);
    int gs = h.getInt(GROUP_SIZE);
    int k = h.getInt(CENTROIDS);
    if (enc != encoding || d != dim) {
      throw new InvalidInputException(
          file
              + ": parameters of "
              + d
              + " "
              + safeName(enc)
              + " columns, the manifest says "
              + dim
              + " "
              + StoreLayout.encodingName(encoding)
              + "; rerun prepare or quantize");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    b.position(StoreLayout.HEADER_BYTES);
    if (encoding == StoreLayout.ENCODING_PQ) {
      if (gs < 1 || k < 1 || k > 256 || h.getInt(GROUPS) != (dim + gs - 1) / gs) {
        throw badLength(file);
      }
      float[] cb = floats(file, b, (long) k * dim, true);
      return new FeatureParams(encoding, dim, gs, k, null, null, cb);
    }
    float[] scale = floats(file, b, dim, false);
    float[] offset = floats(file, b, dim, true);
    return new FeatureParams(encoding, dim, 0, 0, scale, offset, null);
  }

  private static float[] floats(Path file, ByteBuffer b, long n, boolean last) {
    if (b.remaining() < 4 * n || (last && b.remaining() != 4 * n)) {
      throw badLength(file);
    }
    float[] out = new float[(int) n];
    b.asFloatBuffer().get(out);
    b.position(b.position() + 4 * (int) n);
    return out;
  }

  private static InvalidInputException badLength(Path file) {
    return new InvalidInputException(
        file
            + ": feature parameters of the wrong length for their header; rerun prepare or quantize");
  }

  private static String safeName(int code) {
    return code >= 0 && code <= StoreLayout.ENCODING_PQ
        ? StoreLayout.encodingName(code)
        : "code " + code;
  }
}
