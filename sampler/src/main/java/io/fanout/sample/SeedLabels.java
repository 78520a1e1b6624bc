package io.fanout.sample;

/**
 * The labels of a batch's seeds: per seed its class (single-label), and for a multi-label graph
 * also its label set as a CSR over {@code labelIds}.
 *
 * <p>Arrays are owned by the record (compared by identity); callers must not mutate them.
 *
 * @param labels the seeds' class, -1 where unlabelled; length the seed count
 * @param labelPtr the seeds' label sets as row pointers into {@code labelIds} (length the seed
 *     count + 1), or null for single-label seeds
 * @param labelIds the classes of the label sets, or null
 */
public record SeedLabels(int[] labels, int[] labelPtr, int[] labelIds)
    implements java.io.Serializable {
  public SeedLabels {
    if ((labelPtr == null) != (labelIds == null)
        || (labelPtr != null && labelPtr.length != labels.length + 1)) {
      throw new IllegalArgumentException("labelPtr and labelIds disagree with the seeds");
    }
  }

  /** Single-label seeds: {@code labels} without label sets. */
  public static SeedLabels single(int[] labels) {
    return new SeedLabels(labels, null, null);
  }

  /** Whether the seeds carry label sets (multi-label). */
  public boolean multiLabel() {
    return labelPtr != null;
  }
}
