package io.fanout.train;

import io.fanout.store.InvalidInputException;
import java.util.Map;

/**
 * {@code train --early-stop N}: training ends once {@code patience} consecutive epochs brought no
 * new best validation score, the score {@code best.bin} is chosen by (one-type: accuracy; typed
 * node models: Micro-F1; typed link models: AUC). {@code 0} is off.
 *
 * <p>The decision is a function of two numbers every checkpoint records, the epochs trained and the
 * epochs after which the best score came ({@link #bestEpochs}), so a resumed run counts patience on
 * from where the interrupted one was and stops where an uninterrupted run would have; a run that
 * already stopped trains nothing more. Like {@code --epochs}, the patience is not part of a run's
 * identity: a run resumed with a larger one trains on as a run of that patience would have.
 *
 * @param patience epochs without a new best after which training ends (0: never)
 */
public record EarlyStop(int patience) {
  /** No early stopping. */
  public static final EarlyStop OFF = new EarlyStop(0);

  /**
   * The one-type checkpoint's metadata key of the epochs after which the best validation accuracy
   * came (typed checkpoints record {@code best.epoch}, of the same meaning).
   */
  static final String BEST_EPOCHS_KEY = "state.best_epochs";

  private static final String TYPED_BEST_EPOCHS_KEY = "best.epoch";

  public EarlyStop {
    if (patience < 0) {
      throw new IllegalArgumentException("early-stop patience must be >= 0, got " + patience);
    }
  }

  /** Whether early stopping is on. */
  public boolean on() {
    return patience > 0;
  }

  /**
   * Whether training ends after {@code epochs} epochs when the best validation score so far came
   * after {@code bestEpochs} of them (0 or less: no score was better than none yet).
   */
  public boolean stopsAfter(int epochs, int bestEpochs) {
    return on() && epochs - Math.max(0, bestEpochs) >= patience;
  }

  /**
   * Whether a run of {@code total} epochs ends early after {@code epochs} of them ({@link
   * #stopsAfter}): its last epoch ends it anyway, so only an earlier end is an early stop.
   */
  public boolean endsEarlyAfter(int epochs, int bestEpochs, int total) {
    return epochs < total && stopsAfter(epochs, bestEpochs);
  }

  /**
   * The refusal of a run without validation: {@code --early-stop} needs a validation score after
   * every epoch; {@code how} says how this run would get one.
   */
  public InvalidInputException needsValidation(String how) {
    return new InvalidInputException(
        "--early-stop "
            + patience
            + " stops on the validation score, but this run validates on nothing: "
            + how);
  }

  /**
   * The progress line of a stop after epoch {@code epoch} whose best {@code score} came at epoch
   * {@code bestEpoch} (both 1-based, as the epoch lines count; 0 or less: no epoch scored).
   */
  public static String line(int epoch, int bestEpoch, int patience, String score) {
    return "training stopped early at epoch "
        + epoch
        + (bestEpoch > 0 ? " (best epoch " + bestEpoch + ")" : " (no epoch scored)")
        + ": "
        + patience
        + (patience == 1 ? " epoch" : " epochs")
        + " without a better "
        + score;
  }

  /**
   * The epochs after which the best validation score came, as checkpoint metadata {@code meta}
   * records it (one-type or typed), or -1 when it does not.
   */
  public static int bestEpochs(Map<String, String> meta) {
    String v = meta.getOrDefault(BEST_EPOCHS_KEY, meta.get(TYPED_BEST_EPOCHS_KEY));
    return v == null ? -1 : Integer.parseInt(v);
  }

  /**
   * Whether a checkpoint after {@code epochs} epochs, of metadata {@code meta}, is a finished run
   * of {@code want} epochs under this patience: it trained them all, or it stopped early before.
   */
  public boolean finished(int epochs, Map<String, String> meta, int want) {
    if (epochs == want) {
      return true;
    }
    boolean recorded = meta.containsKey(BEST_EPOCHS_KEY) || meta.containsKey(TYPED_BEST_EPOCHS_KEY);
    return recorded && endsEarlyAfter(epochs, bestEpochs(meta), want);
  }
}
