package io.fanout.tensor;

/**
 * The transpose of a CSR structure, built on the host by a stable counting sort, so that the
 * backward of aggregation and of spmm can gather per source row instead of scattering (with float
 * atomics on the device; on the CPU, with threads owning disjoint output rows). For each source
 * (column) {@code s < srcRows}, entries {@code t} in {@code [ptr(s), ptr(s+1))} name the
 * destination row {@link #dst} of each edge into {@code s} and the edge's position {@link #pos} in
 * the original CSR, in ascending edge position: the order in which the CPU backend scatters, so the
 * device sums match it bit for bit.
 *
 * <p>The three arrays live in one int array, {@code [ptr (srcRows + 1) | dst (nnz) | pos (nnz)]},
 * uploaded with one copy.
 */
public final class TransposedCsr {
  private final int srcRows;
  private final int nnz;
  private final int[] packed;

  private TransposedCsr(int srcRows, int nnz, int[] packed) {
    this.srcRows = srcRows;
    this.nnz = nnz;
    this.packed = packed;
  }

  /**
   * Transposes the {@code rows} rows whose edges are {@code indices[iOff + q]} for {@code q} in
   * {@code [indptr[pOff + i], indptr[pOff + i + 1])}. The transpose has {@code max(minSrcRows, max
   * index + 1)} rows.
   */
  public static TransposedCsr build(
      int[] indptr, int pOff, int[] indices, int iOff, int rows, int minSrcRows) {
    return build(indptr, pOff, indices, iOff, rows, minSrcRows, null);
  }

  /**
   * As {@link #build(int[], int, int[], int, int, int)}, into {@code scratch} when it holds {@link
   * #packedLength()} ints (its contents are overwritten; the transpose then owns it), else into a
   * new array.
   */
  public static TransposedCsr build(
      int[] indptr, int pOff, int[] indices, int iOff, int rows, int minSrcRows, int[] scratch) {
    int q0 = indptr[pOff];
    int q1 = indptr[pOff + rows];
    int nnz = q1 - q0;
    int srcRows = Math.max(minSrcRows, 0);
    for (int q = q0; q < q1; q++) {
      int s = indices[iOff + q];
      if (s < 0) {
        throw new IllegalArgumentException("negative CSR index " + s + " at edge " + q);
      }
      srcRows = Math.max(srcRows, s + 1);
    }
    long length = srcRows + 1L + 2L * nnz;
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "a transposed CSR of " + srcRows + " rows and " + nnz + " edges exceeds one int array");
    }
    int[] packed;
    if (scratch != null && scratch.length >= length) {
      packed = scratch;
      java.util.Arrays.fill(packed, 0, srcRows + 1, 0);
    } else {
      packed = new int[(int) length];
    }
    // counts at ptr[s + 1], a prefix sum to each source's start at ptr[s], the fill advancing
    // ptr[s] to its end, which is the next source's start: shifted back up by one at the end
    for (int q = q0; q < q1; q++) {
      packed[indices[iOff + q] + 1]++;
    }
    for (int s = 0; s < srcRows; s++) {
      packed[s + 1] += packed[s];
    }
    int dstBase = srcRows + 1;
    int posBase = dstBase + nnz;
    for (int i = 0; i < rows; i++) {
      for (int q = indptr[pOff + i]; q < indptr[pOff + i + 1]; q++) {
        int t = packed[indices[iOff + q]]++;
        packed[dstBase + t] = i;
        packed[posBase + t] = q;
      }
    }
    System.arraycopy(packed, 0, packed, 1, srcRows);
    packed[0] = 0;
    return new TransposedCsr(srcRows, nnz, packed);
  }

  /** Ints of {@link #packed()} in use: {@code srcRows + 1 + 2 nnz} (the array may be longer). */
  public int packedLength() {
    return srcRows + 1 + 2 * nnz;
  }

  /** Rows of the transpose (sources of the original). */
  public int srcRows() {
    return srcRows;
  }

  public int nnz() {
    return nnz;
  }

  /** {@code [ptr | dst | pos]} in its first {@link #packedLength()} ints; do not modify. */
  public int[] packed() {
    return packed;
  }

  public int ptr(int s) {
    return packed[s];
  }

  public int dst(int t) {
    return packed[srcRows + 1 + t];
  }

  public int pos(int t) {
    return packed[srcRows + 1 + nnz + t];
  }

  /** Element offset of the dst array inside {@link #packed()}. */
  public int dstOffset() {
    return srcRows + 1;
  }

  /** Element offset of the pos array inside {@link #packed()}. */
  public int posOffset() {
    return srcRows + 1 + nnz;
  }
}
