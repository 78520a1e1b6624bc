package io.fanout.train;

import io.fanout.nn.ModelKind;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reuse of hot vertices' bottom-layer embeddings (NeutronOrch, see {@code docs/hot-reuse.md}).
 *
 * <p>The {@code fraction} of the graph's vertices that are hottest (by how often the epoch's shards
 * sample them as bottom-layer destinations, or by in-degree) get their layer-0 outputs (or, with
 * {@link ReuseRows#INPUTS}, layer 0's aggregated inputs) computed by a refresh worker; batches
 * reuse them instead of aggregating those vertices' sampled neighbors. No reused row is older than
 * {@code staleness} steps: a refresh takes the parameters every {@link #period(boolean)} steps and
 * is used from {@link #lag(boolean)} steps later until the next one lands.
 *
 * @param fraction share of the vertices kept hot, in {@code [0, 1]}; 0 turns reuse off
 * @param staleness the most steps a reused embedding may lag the parameters, at least 1, or {@link
 *     #AUTO_STALENESS}: a twelfth of the steps of an epoch, at least 1 ({@link #resolve})
 * @param hotBy {@code frequency} or {@code in-degree}
 * @param refresh {@code overlapped}: a worker thread computes refreshes on a CPU backend of its own
 *     while training goes on (on a GPU backend, the CPU's share of the work); {@code inline}: the
 *     training thread computes them on the trainer's backend at the step that takes the parameters;
 *     {@code auto}: inline on a device, and for {@code inputs}; else overlapped. The same bound
 *     either way; inline has no lag, so its embeddings are fresher and it refreshes less often
 * @param backward how layer 0's parameters get gradient from the rows a step reuses: {@code none}
 *     (they pass none) or {@code deferred} (the reused rows' gradients, summed over the steps that
 *     read a refresh, go back through layer 0 at that refresh's parameters and masks on the worker,
 *     and the steps that read a later refresh add a period-th of that gradient each)
 * @param rows what the cache holds: {@code outputs}, layer 0's outputs (NeutronOrch's embeddings,
 *     computed with parameters up to {@code staleness} steps old), or {@code inputs}, layer 0's
 *     aggregated inputs (GraphSAGE: a vertex's row and the mean of its sampled neighbors' rows,
 *     which do not depend on the parameters): every step then computes layer 0's products for the
 *     reused rows too, with its own parameters, and they pass it the exact gradient; only their
 *     sampled neighborhoods and dropout masks are up to {@code staleness} steps old
 */
public record HotReuse(
    double fraction,
    int staleness,
    HotBy hotBy,
    ReuseRefresh refresh,
    ReuseBackward backward,
    ReuseRows rows) {
  /**
   * The staleness that {@link #resolve} sets from the steps of an epoch: {@code max(1, steps /
   * 12)}, so that the embeddings stay as fresh relative to an epoch on a graph of one batch an
   * epoch as on one of hundreds.
   */
  public static final int AUTO_STALENESS = 0;

  /** No reuse: training as without this feature. */
  public static final HotReuse OFF = new HotReuse(0, 4, HotBy.FREQUENCY);

  public HotReuse {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("reuse-hot must be in [0, 1], got " + fraction);
    }
    if (staleness < 0) {
      throw new IllegalArgumentException(
          "staleness must be at least 1 step, or auto (0), got " + staleness);
    }
    Objects.requireNonNull(hotBy, "hot-by");
    Objects.requireNonNull(refresh, "reuse-refresh");
    Objects.requireNonNull(backward, "reuse-backward");
    Objects.requireNonNull(rows, "reuse-rows");
    if (rows == ReuseRows.AUTO) {
      throw new IllegalArgumentException(
          "reuse-rows must be outputs or inputs, got 'auto' (resolve it with resolveRows)");
    }
    if (rows == ReuseRows.INPUTS && backward == ReuseBackward.DEFERRED) {
      throw new IllegalArgumentException(
          "reuse-backward deferred applies to reuse-rows outputs: with inputs every reused row"
              + " already passes its exact gradient to layer 0");
    }
  }

  /**
   * What the cache holds when options say {@link ReuseRows#AUTO}, their default: {@link
   * ReuseRows#INPUTS} for GraphSAGE (its aggregated inputs do not depend on the parameters, so the
   * step keeps the exact gradient), {@link ReuseRows#OUTPUTS} for another model or with the {@link
   * ReuseBackward#DEFERRED} backward, which applies to outputs; any other value is returned as
   * given.
   */
  public static ReuseRows resolveRows(ReuseRows rows, ModelKind model, ReuseBackward backward) {
    if (rows != ReuseRows.AUTO) {
      return rows;
    }
    return model == ModelKind.SAGE && backward != ReuseBackward.DEFERRED
        ? ReuseRows.INPUTS
        : ReuseRows.OUTPUTS;
  }

  /** The cache holds layer 0's outputs ({@link ReuseRows#OUTPUTS}). */
  public HotReuse(
      double fraction, int staleness, HotBy hotBy, ReuseRefresh refresh, ReuseBackward backward) {
    this(fraction, staleness, hotBy, refresh, backward, ReuseRows.OUTPUTS);
  }

  /** Reused rows pass no gradient to layer 0 ({@link ReuseBackward#NONE}). */
  public HotReuse(double fraction, int staleness, HotBy hotBy, ReuseRefresh refresh) {
    this(fraction, staleness, hotBy, refresh, ReuseBackward.NONE);
  }

  /** Refreshes where {@link ReuseRefresh#AUTO} puts them. */
  public HotReuse(double fraction, int staleness, HotBy hotBy) {
    this(fraction, staleness, hotBy, ReuseRefresh.AUTO);
  }

  /**
   * Whether refreshes run inline on {@code backend} (else on an overlapped CPU worker). {@link
   * ReuseRefresh#AUTO} is inline on a device, and on the CPU backend too when the cache holds
   * inputs: their refresh has no product for a worker to take off the training thread, only a
   * gather and a mean.
   */
  public boolean inlineOn(Backend backend) {
    return refresh == ReuseRefresh.INLINE
        || (refresh == ReuseRefresh.AUTO && (reusesInputs() || !(backend instanceof CpuBackend)));
  }

  /** Whether the cache holds layer 0's aggregated inputs ({@link ReuseRows#INPUTS}). */
  public boolean reusesInputs() {
    return rows == ReuseRows.INPUTS;
  }

  /** Whether layer 0 gets the reused rows' gradient through a deferred backward. */
  public boolean deferredBackward() {
    return backward == ReuseBackward.DEFERRED;
  }

  /** Whether any vertex is kept hot. */
  public boolean enabled() {
    return fraction > 0;
  }

  /**
   * A staleness as options spell it: a number of steps, at least 1, or {@code auto} ({@link
   * #AUTO_STALENESS}).
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static int parseStaleness(String raw) {
    String v = raw.trim();
    if (v.equalsIgnoreCase("auto")) {
      return AUTO_STALENESS;
    }
    try {
      int n = Integer.parseInt(v);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // the message below says what was expected
    }
    throw new IllegalArgumentException("expected a number of steps of at least 1, or auto");
  }

  /** {@code staleness} as options spell it: {@code auto} for {@link #AUTO_STALENESS}. */
  public static String stalenessName(int staleness) {
    return staleness == AUTO_STALENESS ? "auto" : Integer.toString(staleness);
  }

  /** Whether the staleness is {@link #AUTO_STALENESS}, set from the epoch by {@link #resolve}. */
  public boolean autoStaleness() {
    return staleness == AUTO_STALENESS;
  }

  /**
   * These settings with the staleness set for epochs of {@code stepsPerEpoch} steps when it is
   * {@link #AUTO_STALENESS}; else these settings.
   */
  public HotReuse resolve(int stepsPerEpoch) {
    if (!autoStaleness()) {
      return this;
    }
    return new HotReuse(fraction, Math.max(1, stepsPerEpoch / 12), hotBy, refresh, backward, rows);
  }

  /**
   * Steps between taking the parameters for an overlapped refresh and using its result, so that it
   * has that many steps to compute: max(1, ceil(S/2)).
   */
  public int lag() {
    if (autoStaleness()) {
      throw new IllegalStateException("staleness auto is set by resolve(steps per epoch) first");
    }
    return Math.max(1, (staleness + 1) / 2);
  }

  /**
   * As {@link #lag()} for a refresh computed where the trainer runs ({@code inline}): 0, since the
   * training thread computes it before the step that takes its parameters, which then reads it.
   */
  public int lag(boolean inline) {
    return inline ? 0 : lag();
  }

  /** Steps between two refreshes, inline or overlapped: {@code S + 1 - lag(inline)}. */
  public int period(boolean inline) {
    return staleness + 1 - lag(inline);
  }

  /**
   * The identity entries whose absence means reuse off, or a reused row without a deferred
   * backward, or a cache of outputs: a run that lacks one cannot resume a checkpoint that has it.
   * They are what {@link #toMap} writes with every option on, but for {@code reuse_refresh}, which
   * the trainer records resolved ({@code inline} or {@code overlapped}) whenever reuse is on.
   */
  static java.util.Set<String> identityKeys() {
    java.util.Set<String> keys =
        new java.util.LinkedHashSet<>(
            new HotReuse(1, 1, HotBy.FREQUENCY, ReuseRefresh.AUTO, ReuseBackward.DEFERRED)
                .toMap()
                .keySet());
    keys.addAll(
        new HotReuse(1, 1, HotBy.FREQUENCY, ReuseRefresh.AUTO, ReuseBackward.NONE, ReuseRows.INPUTS)
            .toMap()
            .keySet());
    return keys;
  }

  /**
   * The settings as checkpoint identity entries (only written when reuse is on); {@code
   * reuse_refresh} only when explicit: the trainer writes the schedule {@code auto} resolved to.
   */
  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("reuse_hot", String.format(Locale.ROOT, "%s", fraction));
    m.put("staleness", stalenessName(staleness));
    m.put("hot_by", hotBy.id());
    if (refresh != ReuseRefresh.AUTO) { // other checkpoints keep their identity
      m.put("reuse_refresh", refresh.id());
    }
    if (deferredBackward()) {
      m.put("reuse_backward", backward.id());
    }
    if (reusesInputs()) { // a cache of outputs writes none, as before the option existed
      m.put("reuse_rows", rows.id());
    }
    return m;
  }
}
