package io.fanout.store;

/**
 * In what order a graph store keeps its feature rows on disk (its manifest's {@code
 * feature_layout}, {@code quantize --feature-layout}). Rows never leave their partition's feature
 * file; a layout only orders them inside it, so that the rows a batch draws together lie side by
 * side and one read carries many of them. Readers map a dense id to its row through the store's
 * {@link StoreLayout#FEATURE_ORDER} file, so results do not depend on the layout.
 */
public enum FeatureLayoutKind {
  /** Row {@code v} at position {@code v}: every store without a {@code feature_layout}. */
  IDENTITY("identity"),

  /**
   * Inside each partition: the partition's training vertices in dense-id order (all its vertices
   * when it has none), each followed by the rows of its in-neighbors and theirs (two hops, the
   * neighborhood a sampler draws from) not placed yet, staying in the partition; then the rows not
   * reached, in id order. Then each row joins the seed group most of its in-neighbors are in, and
   * rows are ordered by group ({@code io.fanout.graph.NeighborhoodOrder}).
   *
   * <p>On a typed store (per type, as {@link #SEED_GROUPS}): the {@link #SEED_GROUPS} first-use
   * keys give every vertex the group of its seed (the unreached a group of their own, after every
   * seed's); each featured row then joins the group most of the vertices that draw it (its
   * out-neighbors over every relation) are in, and rows are ordered by group, inside a group in
   * first-use order ({@code io.fanout.graph.TypedNeighborhoodOrder}).
   */
  NEIGHBORHOOD("neighborhood"),

  /**
   * Inside each partition: each training vertex in dense-id order (all its vertices when it has
   * none) followed by the rows of its two-hop in-neighborhood that no earlier seed placed; then the
   * rows no seed reaches, in id order ({@code io.fanout.graph.SeedGroupOrder}). Unlike {@link
   * #NEIGHBORHOOD} nothing is regrouped, so the rows training never reads stay out of the seeds'
   * runs: for stores whose training vertices are a small share of the vertices, where each seed's
   * rows are one read whatever the epoch's order.
   *
   * <p>On a typed store (per type, {@code types/<type>/}{@link StoreLayout#FEATURE_ORDER} and the
   * type's manifest {@code feature_layout}): the seeds are the training vertices of the one
   * labelled type (all of them when it has none), in type-local id order. Every vertex of any type
   * gets the key {@code (s, h)} of the smallest seed {@code s} whose typed two-hop in-neighborhood
   * holds it (over every relation into the target type, then every relation into the reached
   * vertex's type) and the hop {@code h} (0, 1 or 2) at which {@code s} first reaches it. Inside
   * each partition of each type with feature rows, rows are ordered by key (seed, then hop), then
   * type-local id; the rows no seed reaches follow, in id order ({@code
   * io.fanout.graph.TypedSeedGroupOrder}). Types without features are walked through and have no
   * layout.
   */
  SEED_GROUPS("seed-groups");

  private final String id;

  FeatureLayoutKind(String id) {
    this.id = id;
  }

  /** The spelling in options and manifests, e.g. {@code neighborhood}. */
  public String id() {
    return id;
  }

  /** The value spelled {@code raw}; throws IllegalArgumentException naming the allowed ones. */
  public static FeatureLayoutKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), FeatureLayoutKind::id);
  }
}
