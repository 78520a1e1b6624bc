package io.fanout.tensor.cuda;

import io.fanout.store.InvalidInputException;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.RowEncoding;
import io.fanout.tensor.RowFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Feature rows that the device's gather kernels read in place, from one of two homes:
 *
 * <ul>
 *   <li>host memory mapped into the device's address space ({@code --feature-access zero-copy}, as
 *       in PyTorch-Direct): a kernel reads a batch's rows straight over PCIe into a device tensor,
 *       and the CPU neither gathers nor copies them ({@link #open}, {@link #pinnedCopy});
 *   <li>device memory ({@code --feature-access device}): the encoded rows are uploaded once, and a
 *       batch uploads only its node ids ({@link #resident}, {@link #residentCopy}).
 * </ul>
 *
 * <p>f32 rows are read as stored ({@code gather_parts}). Rows of a quantized store stay encoded in
 * host memory: a decode-gather kernel per encoding ({@code gather_parts_f16}, {@code _int8}, {@code
 * _int4}, {@code _pq}, in {@code decode.cu}) reads each batch row's encoded bytes over PCIe and
 * writes its float32 values, bit for bit those of the store's host decoder. The per-column scales
 * and offsets of int8/int4, or the PQ codebooks, are uploaded once to device memory.
 *
 * <p>The files and the encoding come from the caller ({@link RowFiles}, {@link RowEncoding}); this
 * class reads no store metadata. Each partition file is memory-mapped in chunks of whole rows (at
 * most {@link #MAX_CHUNK} bytes) and each chunk registered with {@code cuMemHostRegister(DEVICEMAP
 * | READ_ONLY)}. Where the driver refuses to register a file mapping, the chunk is copied once into
 * mapped pinned memory ({@code cuMemHostAlloc(DEVICEMAP)}) instead; {@link #registeredChunks()}
 * tells which happened.
 */
public final class KernelFeatureRows implements FeatureRows {
  private static final Logger LOG = Logger.getLogger(KernelFeatureRows.class.getName());
  public static final long MAX_CHUNK = 1L << 30;
  private static final int PAGE = 4096;
  private static final int REGISTER_DEVICEMAP = 0x02;
  private static final int REGISTER_READ_ONLY = 0x08;

  /** A run of rows {@code [first, first + rows)} of one partition file. */
  record Chunk(int file, long first, long rows) {}

  private final CudaBackend be;
  private final RowEncoding encoding;
  private final int dim;
  private final long numRows;
  private final List<Pointer> registered = new ArrayList<>();
  private final List<MappedByteBuffer> mappings = new ArrayList<>();
  private final List<PinnedBuffer> copies = new ArrayList<>();
  private final List<CUdeviceptr> residentChunks = new ArrayList<>();
  private long residentBytes;
  private int parts;
  private DevicePool.Lease<CUdeviceptr> bases;

  /** f32 rows of a multiple of 4 floats in 16-byte aligned partitions: gather_parts_v4 reads. */
  private boolean aligned4;

  private DevicePool.Lease<CUdeviceptr> firsts;
  // int8/int4: per-column scale and offset; pq: the codebooks (in scale); null for f32 and f16
  private DevicePool.Lease<CUdeviceptr> scale;
  private DevicePool.Lease<CUdeviceptr> offset;

  /** Maps {@code files}, in any encoding, for zero-copy reads on {@code be}'s device. */
  public static KernelFeatureRows open(CudaBackend be, RowFiles files) {
    return ofFiles(be, files, MAX_CHUNK);
  }

  /**
   * Maps {@code files} in chunks of at most {@code maxChunk} bytes (whole rows, at least one): file
   * {@code p} holds rows {@code [starts[p], starts[p+1])} of {@link RowEncoding#rowBytes} bytes
   * each after its header.
   */
  public static KernelFeatureRows ofFiles(CudaBackend be, RowFiles files, long maxChunk) {
    RowEncoding encoding = files.encoding();
    KernelFeatureRows z = new KernelFeatureRows(be, encoding, files.numRows());
    z.init(plan(files.starts(), encoding.rowBytes(), maxChunk), ch -> z.mapChunk(files, ch));
    return z;
  }

  /**
   * Uploads {@code files}' rows, in any encoding and still encoded, once into {@code be}'s device
   * memory (chunks of at most {@link #MAX_CHUNK} bytes); the gather kernels then read them there.
   * Read {@link #residentBytes()} for what it took.
   */
  public static KernelFeatureRows resident(CudaBackend be, RowFiles files) {
    RowEncoding encoding = files.encoding();
    requireRoom(be, files.numRows() * encoding.rowBytes());
    KernelFeatureRows z = new KernelFeatureRows(be, encoding, files.numRows());
    z.init(
        plan(files.starts(), encoding.rowBytes(), MAX_CHUNK), ch -> z.uploadFileChunk(files, ch));
    return z;
  }

  /**
   * Uploads the row-major {@code rows x dim} f32 table once into {@code be}'s device memory, for
   * tables that live on the heap (the benchmark's generated features).
   */
  public static KernelFeatureRows residentCopy(CudaBackend be, float[] table, int rows, int dim) {
    requireRoom(be, 4L * rows * dim);
    KernelFeatureRows z = new KernelFeatureRows(be, RowEncoding.f32(dim), rows);
    z.init(
        plan(new long[] {0, rows}, 4L * dim, MAX_CHUNK),
        ch ->
            z.uploadChunk(
                Pointer.to(table).withByteOffset(4L * ch.first() * dim), ch.rows() * 4L * dim));
    return z;
  }

  /** Refuses, in the user's terms, rows that cannot fit in the device's free memory. */
  private static void requireRoom(CudaBackend be, long bytes) {
    long free = be.freeDeviceBytes();
    if (bytes > free) {
      throw new InvalidInputException(
          String.format(
              java.util.Locale.ROOT,
              "--feature-access device: the %.2f GiB of feature rows do not fit in the %.2f GiB"
                  + " of free memory on %s; use --feature-access auto or zero-copy (rows read in"
                  + " place from host memory)",
              bytes / (double) (1L << 30),
              free / (double) (1L << 30),
              be.name()));
    }
  }

  /**
   * Copies the row-major {@code rows x dim} table once into mapped pinned host memory, for tables
   * that live on the heap (the benchmark's generated features): the rows stay in host memory and
   * the gather kernel reads them over PCIe, as from a registered store mapping.
   */
  public static KernelFeatureRows pinnedCopy(CudaBackend be, float[] table, int rows, int dim) {
    KernelFeatureRows z = new KernelFeatureRows(be, RowEncoding.f32(dim), rows);
    z.init(plan(new long[] {0, rows}, 4L * dim, MAX_CHUNK), ch -> z.copyChunk(table, ch));
    return z;
  }

  /**
   * Reads rows encoded as {@code encoding} from memory the caller owns and keeps mapped: rows from
   * {@code firsts[c]} on start at device address {@code bases[c]} ({@code firsts} ascending). Used
   * for a feature cache's pinned pages ({@link PinnedFeaturePages}).
   */
  static KernelFeatureRows ofAddresses(
      CudaBackend be, RowEncoding encoding, long[] bases, long[] firsts, long numRows) {
    KernelFeatureRows z = new KernelFeatureRows(be, encoding, numRows);
    List<Chunk> plan = new ArrayList<>(bases.length);
    for (int c = 0; c < bases.length; c++) {
      plan.add(new Chunk(c, firsts[c], 0));
    }
    z.init(plan, ch -> bases[ch.file()]);
    return z;
  }

  private KernelFeatureRows(CudaBackend be, RowEncoding encoding, long numRows) {
    this.be = be;
    this.encoding = encoding;
    this.dim = encoding.dim();
    this.numRows = numRows;
  }

  /** The device address of a chunk's first row. */
  private interface ChunkMapper {
    long map(Chunk ch);
  }

  private void init(List<Chunk> plan, ChunkMapper mapper) {
    parts = plan.size();
    long[] baseAddr = new long[parts];
    long[] first = new long[parts];
    try {
      switch (encoding.kind()) {
        case INT8, INT4 -> {
          scale = upload(encoding.scale());
          offset = upload(encoding.offset());
        }
        case PQ -> scale = upload(encoding.codebooks());
        case F32, F16 -> {}
      }
      for (int c = 0; c < parts; c++) {
        Chunk ch = plan.get(c);
        baseAddr[c] = mapper.map(ch);
        first[c] = ch.first();
      }
      aligned4 = encoding.kind() == RowEncoding.Kind.F32 && dim % 4 == 0;
      for (long a : baseAddr) {
        aligned4 &= a % 16 == 0;
      }
      bases = upload(baseAddr);
      firsts = upload(first);
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
    LOG.info(
        "feature rows for the gather kernels: "
            + encoding.kind().label()
            + " rows of "
            + encoding.rowBytes()
            + " bytes, "
            + parts
            + " chunk(s): "
            + (residentChunks.isEmpty()
                ? registered.size()
                    + " registered file mappings, "
                    + copies.size()
                    + " pinned copies (zero-copy)"
                : residentBytes + " bytes in device memory"));
  }

  /** Splits each file's rows into chunks of at most {@code maxChunk} bytes (at least one row). */
  static List<Chunk> plan(long[] starts, long rowBytes, long maxChunk) {
    long perChunk = Math.max(1, maxChunk / rowBytes);
    List<Chunk> out = new ArrayList<>();
    for (int f = 0; f + 1 < starts.length; f++) {
      for (long r = starts[f]; r < starts[f + 1]; r += perChunk) {
        out.add(new Chunk(f, r, Math.min(perChunk, starts[f + 1] - r)));
      }
    }
    return out;
  }

  /** Maps, registers (or copies) one chunk; returns the device address of its first row. */
  private long mapChunk(RowFiles files, Chunk ch) {
    MappedRows r = mapRows(files, ch);
    MappedByteBuffer mb = r.mapping();
    long delta = r.delta();
    long len = r.length();
    Pointer host = Pointer.to(mb);
    int rc = JCudaDriver.cuMemHostRegister(host, len, REGISTER_DEVICEMAP | REGISTER_READ_ONLY);
    CUdeviceptr dev = new CUdeviceptr();
    if (rc == CUresult.CUDA_SUCCESS) {
      registered.add(host);
      mappings.add(mb); // keeps the mapping alive while the device reads it
      CudaDriver.check(
          "cuMemHostGetDevicePointer", JCudaDriver.cuMemHostGetDevicePointer(dev, host, 0));
      return CudaDriver.address(dev) + delta;
    }
    LOG.fine("cuMemHostRegister refused " + r.file() + ": " + CUresult.stringFor(rc));
    PinnedBuffer copy = PinnedBuffer.allocateMapped(ch.rows() * encoding.rowBytes());
    copies.add(copy);
    copy.bytes().put(mb.duplicate().position((int) delta).limit((int) len));
    CudaDriver.check(
        "cuMemHostGetDevicePointer", JCudaDriver.cuMemHostGetDevicePointer(dev, copy.pointer(), 0));
    return CudaDriver.address(dev);
  }

  /**
   * Uploads one chunk of a file into device memory; returns the device address of its first row.
   */
  private long uploadFileChunk(RowFiles files, Chunk ch) {
    MappedRows r = mapRows(files, ch);
    ByteBuffer rows =
        r.mapping().duplicate().position((int) r.delta()).limit((int) r.length()).slice();
    return uploadChunk(Pointer.to(rows), ch.rows() * encoding.rowBytes());
  }

  /** Copies {@code bytes} from {@code host} into a new device buffer; returns its address. */
  private long uploadChunk(Pointer host, long bytes) {
    CUdeviceptr dev = new CUdeviceptr();
    CudaDriver.check("cuMemAlloc", JCudaDriver.cuMemAlloc(dev, Math.max(bytes, 1)));
    residentChunks.add(dev);
    residentBytes += bytes;
    CudaDriver.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(dev, host, bytes));
    return CudaDriver.address(dev);
  }

  /** The page-aligned mapping of a chunk's rows in its file: they start {@code delta} bytes in. */
  private record MappedRows(Path file, MappedByteBuffer mapping, long delta, long length) {}

  /** Maps a chunk's rows, after checking that its file holds them. */
  private MappedRows mapRows(RowFiles files, Chunk ch) {
    Path file = files.files()[ch.file()];
    long localFirst = ch.first() - files.starts()[ch.file()];
    long rowBytes = encoding.rowBytes();
    long pos = files.headerBytes() + localFirst * rowBytes;
    long aligned = pos - (pos % PAGE);
    long delta = pos - aligned;
    long len = delta + ch.rows() * rowBytes;
    try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ)) {
      if (fc.size() < pos + ch.rows() * rowBytes) {
        throw new InvalidInputException(
            file
                + " is shorter than its "
                + ch.rows()
                + " rows of "
                + rowBytes
                + " bytes; re-run prepare to rewrite the store");
      }
      return new MappedRows(file, fc.map(FileChannel.MapMode.READ_ONLY, aligned, len), delta, len);
    } catch (IOException e) {
      throw new UncheckedIOException("mapping " + file + " failed: " + e.getMessage(), e);
    }
  }

  /** Copies a chunk of a heap table into mapped pinned memory; returns its device address. */
  private long copyChunk(float[] table, Chunk ch) {
    PinnedBuffer copy = PinnedBuffer.allocateMapped(ch.rows() * 4L * dim);
    copies.add(copy);
    copy.bytes().asFloatBuffer().put(table, (int) (ch.first() * dim), (int) (ch.rows() * dim));
    CUdeviceptr dev = new CUdeviceptr();
    CudaDriver.check(
        "cuMemHostGetDevicePointer", JCudaDriver.cuMemHostGetDevicePointer(dev, copy.pointer(), 0));
    return CudaDriver.address(dev);
  }

  private DevicePool.Lease<CUdeviceptr> upload(long[] a) {
    return upload(Pointer.to(a), 8L * a.length);
  }

  private DevicePool.Lease<CUdeviceptr> upload(float[] a) {
    return upload(Pointer.to(a), 4L * a.length);
  }

  private DevicePool.Lease<CUdeviceptr> upload(Pointer host, long bytes) {
    DevicePool.Lease<CUdeviceptr> l = be.pool().acquire(bytes);
    try {
      CudaDriver.check("cuMemcpyHtoD", JCudaDriver.cuMemcpyHtoD(l.ptr(), host, bytes));
    } catch (RuntimeException e) {
      be.pool().release(l);
      throw e;
    }
    return l;
  }

  /** Bytes of encoded rows held in device memory (0 when the rows stay in host memory). */
  public long residentBytes() {
    return residentBytes;
  }

  /** Chunks served from registered file mappings (the rest are pinned copies). */
  public int registeredChunks() {
    return registered.size();
  }

  public int chunks() {
    return parts;
  }

  @Override
  public int dim() {
    return dim;
  }

  /** The encoding of the rows as held (in host or device memory). */
  public RowEncoding.Kind encoding() {
    return encoding.kind();
  }

  /**
   * Gathers the feature rows {@code ids[idsOff .. idsOff+rows)} (global vertex ids) into the {@code
   * rows x dim} matrix at {@code out[outOff ..)}, on the backend's stream, decoding encoded rows on
   * the device: only {@link RowEncoding#rowBytes} bytes per row cross the bus.
   */
  @Override
  public void gather(IntTensor ids, int idsOff, int rows, FloatTensor out, int outOff) {
    CUdeviceptr pi = be.pointer(ids, idsOff, rows);
    CUdeviceptr po = be.pointer(out, outOff, (long) rows * dim);
    long n = (long) rows * dim;
    switch (encoding.kind()) {
      case F32 -> {
        if (aligned4 && CudaDriver.address(po) % 16 == 0) {
          be.launch(
              "gather_parts_v4",
              n / 4,
              new KernelArgs()
                  .p(bases.ptr())
                  .p(firsts.ptr())
                  .i(parts)
                  .p(pi)
                  .i(rows)
                  .i(dim / 4)
                  .p(po));
        } else {
          be.launch(
              "gather_parts",
              n,
              new KernelArgs().p(bases.ptr()).p(firsts.ptr()).i(parts).p(pi).i(rows).i(dim).p(po));
        }
      }
      case F16 ->
          be.launch(
              "gather_parts_f16",
              n,
              new KernelArgs().p(bases.ptr()).p(firsts.ptr()).i(parts).p(pi).i(rows).i(dim).p(po));
      case INT8 ->
          be.launch(
              "gather_parts_int8",
              n,
              new KernelArgs()
                  .p(bases.ptr())
                  .p(firsts.ptr())
                  .i(parts)
                  .p(pi)
                  .i(rows)
                  .i(dim)
                  .p(scale.ptr())
                  .p(offset.ptr())
                  .p(po));
      case INT4 ->
          be.launch(
              "gather_parts_int4",
              n,
              new KernelArgs()
                  .p(bases.ptr())
                  .p(firsts.ptr())
                  .i(parts)
                  .p(pi)
                  .i(rows)
                  .i(dim)
                  .p(scale.ptr())
                  .p(offset.ptr())
                  .p(po));
      case PQ ->
          be.launch(
              "gather_parts_pq",
              n,
              new KernelArgs()
                  .p(bases.ptr())
                  .p(firsts.ptr())
                  .i(parts)
                  .p(pi)
                  .i(rows)
                  .i(dim)
                  .i(encoding.groupSize())
                  .i(encoding.centroids())
                  .p(scale.ptr())
                  .p(po));
    }
  }

  /** Rows of the whole table. */
  @Override
  public long numRows() {
    return numRows;
  }

  /**
   * Unregisters the mappings and frees the pinned copies, the device-resident rows and the tables,
   * each in its finally.
   */
  @Override
  public void close() {
    NativeCleanup c = new NativeCleanup();
    be.sync();
    for (Pointer p : registered) {
      c.run("cuMemHostUnregister", () -> JCudaDriver.cuMemHostUnregister(p));
    }
    registered.clear();
    for (PinnedBuffer b : copies) {
      c.close(b);
    }
    copies.clear();
    mappings.clear();
    for (CUdeviceptr p : residentChunks) {
      c.run("cuMemFree", () -> JCudaDriver.cuMemFree(p));
    }
    residentChunks.clear();
    residentBytes = 0;
    if (bases != null) {
      be.pool().release(bases);
      bases = null;
    }
    if (firsts != null) {
      be.pool().release(firsts);
      firsts = null;
    }
    if (scale != null) {
      be.pool().release(scale);
      scale = null;
    }
    if (offset != null) {
      be.pool().release(offset);
      offset = null;
    }
    c.rethrow();
  }
}
