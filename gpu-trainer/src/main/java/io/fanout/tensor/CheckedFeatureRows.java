package io.fanout.tensor;

/**
 * CPU feature rows of a {@link CheckingBackend} behind its checked tensors, counted by it as live
 * until closed.
 */
class CheckedFeatureRows implements FeatureRows {
  private final CheckingBackend owner;
  final FeatureRows inner;
  private boolean open = true;

  CheckedFeatureRows(CheckingBackend owner, FeatureRows inner) {
    this.owner = owner;
    this.inner = inner;
    owner.rowsOpened();
  }

  @Override
  public int dim() {
    return inner.dim();
  }

  @Override
  public long numRows() {
    return inner.numRows();
  }

  @Override
  public void gather(IntTensor ids, int idsOff, int rows, FloatTensor out, int outOff) {
    if (!open) {
      throw new IllegalStateException("checked backend: feature rows were closed");
    }
    CheckedTensors.range(ids, idsOff, rows, "gather ids");
    CheckedTensors.range(out, outOff, Math.multiplyExact(rows, inner.dim()), "gather rows");
    inner.gather(owner.d(ids), idsOff, rows, owner.d(out), outOff);
  }

  @Override
  public void close() {
    if (open) {
      open = false;
      owner.rowsClosed();
      inner.close();
    }
  }

  /** {@link CheckedFeatureRows} over pages a feature cache fills. */
  static final class Paged extends CheckedFeatureRows implements PagedFeatureRows {
    private final PagedFeatureRows pages;

    Paged(CheckingBackend owner, PagedFeatureRows pages) {
      super(owner, pages);
      this.pages = pages;
    }

    @Override
    public long pageBytes() {
      return pages.pageBytes();
    }

    @Override
    public boolean onHeap() {
      return pages.onHeap();
    }

    @Override
    public java.nio.ByteBuffer allocate(long firstSlot, int bytes) {
      return pages.allocate(firstSlot, bytes);
    }
  }
}
