package io.fanout.nn;

import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * The output gradients of the rows that training steps reuse, summed per hot slot for a deferred
 * backward ({@link ReusedRows#gradientSink}). A step appends its reused rows' gradient rows (one
 * gather on the backend, {@link ReusedScatter}); they are added into the slot-indexed {@link
 * #sum()} in append order when the appended rows would outnumber the slots and when the sum is
 * taken. So a step costs what its batch reuses, not what the hot set holds, and the buffer never
 * holds more rows than there are slots (or than one append brings). Not thread-safe.
 */
public final class ReusedGradients implements AutoCloseable {
  private final Backend be;
  private final int slots;
  private final int width;
  private FloatTensor sum;
  private FloatTensor rows; // appended gradient rows, count x width
  private int[] rowSlots = new int[16];
  private int count;
  private final IdentityPtr ptr;
  private IntTensor slotIds;

  /** A zero sum of {@code slots} rows of {@code width} on {@code be}. */
  public ReusedGradients(Backend be, int slots, int width) {
    this.be = be;
    this.slots = slots;
    this.width = width;
    this.ptr = new IdentityPtr(be);
    long n = (long) slots * width;
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          slots + " hot rows of " + width + " gradients exceed one buffer");
    }
    sum = be.allocFloat(Math.max(1, (int) n));
    be.zero(sum, 0, (int) n);
  }

  /**
   * The buffer with room for {@code n} more rows at element {@link #offset()}, the rows appended so
   * far folded into the sum first when they and {@code n} more would not fit.
   */
  FloatTensor reserve(int n) {
    long need = ((long) count + n) * width;
    if (count > 0 && ((long) count + n > Math.max(slots, n) || rows.length() < need)) {
      fold();
      need = (long) n * width;
    }
    rows = TensorBufs.ensure(be, rows, Math.max(1, need));
    return rows;
  }

  /** Where the next appended row starts in the buffer, in elements. */
  int offset() {
    return count * width;
  }

  /** Records that rows for {@code slots[0 .. n)} were written at {@link #offset()}. */
  void appended(int[] slotsOf, int n) {
    if (rowSlots.length < count + n) {
      rowSlots = java.util.Arrays.copyOf(rowSlots, Math.max(count + n, rowSlots.length * 3 / 2));
    }
    System.arraycopy(slotsOf, 0, rowSlots, count, n);
    count += n;
  }

  /**
   * Appends {@code n} rows given on the host ({@code rows[i * width ..]} for slot {@code
   * slotsOf[i]}); steps append on the backend instead.
   */
  public void append(int[] slotsOf, float[] hostRows, int n) {
    for (int i = 0; i < n; i++) {
      if (slotsOf[i] < 0 || slotsOf[i] >= slots) {
        throw new IllegalArgumentException("slot " + slotsOf[i] + " of " + slots);
      }
    }
    FloatTensor buf = reserve(n);
    be.upload(hostRows, 0, buf, offset(), n * width);
    appended(slotsOf, n);
  }

  /** Adds the appended rows into the sum, each slot's in append order, and empties the buffer. */
  private void fold() {
    if (count == 0) {
      return;
    }
    slotIds = TensorBufs.ensure(be, slotIds, count);
    be.upload(rowSlots, 0, slotIds, 0, count);
    be.aggregateBackward(
        Aggregation.SUM, ptr.rows(count), 0, slotIds, 0, count, 0, rows, 0, width, sum, 0);
    count = 0;
  }

  /**
   * Every row appended since the last {@link #clear}, summed per slot ({@code slots x width}); a
   * caller may overwrite it, then clears.
   */
  public FloatTensor sum() {
    fold();
    return sum;
  }

  /** Drops the appended rows and zeroes the sum. */
  public void clear() {
    count = 0;
    be.zero(sum, 0, slots * width);
  }

  @Override
  public void close() {
    TensorBufs.free(be, sum);
    TensorBufs.free(be, rows);
    ptr.close();
    TensorBufs.free(be, slotIds);
    sum = rows = null;
    slotIds = null;
  }
}
