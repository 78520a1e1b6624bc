package io.fanout.sample;

/**
 * The sampled subgraph of a typed batch: per vertex type its nodes and how many each hop reached,
 * and per hop and relation a message-flow block (a CSR) between them; {@link TypedMiniBatch} states
 * what each array holds.
 *
 * <p>Arrays are owned by the record (compared by identity); callers must not mutate them.
 *
 * @param nodes {@code nodes[t]}, type-local ids of type {@code t}, every hop's nodes in order
 * @param layerSizes {@code layerSizes[t][h]}: type {@code t}'s nodes after hop {@code h}
 * @param indptr {@code indptr[h-1][r]}: the row pointers of block {@code (h, r)}
 * @param indices {@code indices[h-1][r]}: the source indices of block {@code (h, r)}
 */
public record TypedBlocks(int[][] nodes, int[][] layerSizes, int[][][] indptr, int[][][] indices)
    implements java.io.Serializable {}
