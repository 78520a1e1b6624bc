package io.fanout.features;

import io.fanout.graph.FeatureRowOrder;
import io.fanout.graph.GraphStore;
import java.util.Arrays;
import java.util.List;

/**
 * Where each row lies in the feature files: row {@code v} is stored at position {@code position(v)}
 * (the files hold positions in order, as they hold rows without a layout). A layout only moves rows
 * on disk; a read by row id returns the same bytes whatever the layout, so results do not depend on
 * it. {@link #firstUse} stores rows in the order a sequence of batches first touches them, so that
 * the rows a batch reads for the first time lie side by side and one read carries many of them;
 * {@link #of(GraphStore)} is the layout a store records ({@code feature_layout}, {@link
 * FeatureRowOrder}).
 */
public final class RowLayout {
  /** Rows at their own ids. */
  public static final RowLayout IDENTITY = new RowLayout(FeatureRowOrder.IDENTITY);

  private final FeatureRowOrder order;

  private RowLayout(FeatureRowOrder order) {
    this.order = order;
  }

  private RowLayout(int[] position) {
    this(FeatureRowOrder.of(position));
  }

  /** The layout of {@code store}'s feature files: its recorded order, or rows at their ids. */
  public static RowLayout of(GraphStore store) {
    return of(store.featureRowOrder());
  }

  /** The layout of files kept in {@code order} (a typed store's, per type). */
  public static RowLayout of(FeatureRowOrder order) {
    return order.isIdentity() ? IDENTITY : new RowLayout(order);
  }

  /**
   * The layout storing row {@code v} at {@code position[v]}; the array is a permutation of {@code
   * 0 .. position.length) and is not copied.
   *
   * @throws IllegalArgumentException when it is not a permutation
   */
  public static RowLayout of(int[] position) {
    boolean[] seen = new boolean[position.length];
    for (int p : position) {
      if (p < 0 || p >= position.length || seen[p]) {
        throw new IllegalArgumentException(
            "a row layout must be a permutation of 0.." + (position.length - 1) + "; " + p);
      }
      seen[p] = true;
    }
    return new RowLayout(position);
  }

  /**
   * Rows in the order {@code batches} first touch them (batch by batch, each in its own order),
   * then the rows never touched, in id order.
   */
  public static RowLayout firstUse(int rows, List<int[]> batches) {
    int[] position = new int[rows];
    Arrays.fill(position, -1);
    int next = 0;
    for (int[] b : batches) {
      for (int v : b) {
        if (position[v] < 0) {
          position[v] = next++;
        }
      }
    }
    for (int v = 0; v < rows; v++) {
      if (position[v] < 0) {
        position[v] = next++;
      }
    }
    return new RowLayout(position);
  }

  /** Whether every row lies at its own id. */
  public boolean isIdentity() {
    return order.isIdentity();
  }

  /** The rows the layout places, or -1 for {@link #IDENTITY} (any number). */
  public int rows() {
    return order.rows();
  }

  /** The position of row {@code row}. */
  public int position(int row) {
    return order.position(row);
  }

  /** The row at each position: the inverse, for writing files in this layout. */
  public int[] rowsByPosition(int rows) {
    int[] row = new int[rows];
    for (int v = 0; v < rows; v++) {
      row[position(v)] = v;
    }
    return row;
  }
}
