package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import io.fanout.nn.FeatureNormKind;
import io.fanout.shard.ShardManifest;
import io.fanout.store.InvalidInputException;
import io.fanout.train.BatchStream;
import io.fanout.train.ShardSet;
import io.fanout.train.TrainBatch;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trainer that opened a shard directory reads only the version it opened: when {@code sample
 * --overwrite} replaces the shards meanwhile, it fails clearly instead of reading a mix of old and
 * new parts; a new reader gets the new version whole.
 */
class ReplacedUnderReaderTest {
  @TempDir Path tmp;

  @Test
  void aReaderOfReplacedShardsFailsClearlyAndNeverMixesVersions() throws Exception {
    TrainFixtures.Graph g = TrainFixtures.graph(5, 120, 4);
    Path store = tmp.resolve("store");
    TrainFixtures.writeStore(store, g);
    Path shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, g, new int[] {3}, 16, 1, 1);
    try (GraphStore gs = GraphStore.open(store)) {
      ShardSet old = ShardSet.open(shards);
      assertThat(old.manifest().dataDir).isEqualTo("v-0001");
      TrainFixtures.writeShards(shards, store, g, new int[] {3}, 16, 1, 2); // a new seed
      assertThatThrownBy(
              () -> {
                try (BatchStream s =
                    old.epochData(gs.features(), 4, FeatureNormKind.NONE, 1, 1, true).open(0)) {
                  for (TrainBatch b = s.next(); b != null; b = s.next()) {
                    s.recycle(b);
                  }
                }
              })
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("v-0001")
          .hasMessageContaining("was replaced");

      ShardSet now = ShardSet.open(shards);
      assertThat(now.manifest().dataDir).isEqualTo("v-0002");
      assertThat(now.manifest().seed).isEqualTo(2);
      int batches = 0;
      try (BatchStream s =
          now.epochData(gs.features(), 4, FeatureNormKind.NONE, 1, 1, true).open(0)) {
        for (TrainBatch b = s.next(); b != null; b = s.next()) {
          batches++;
          s.recycle(b);
        }
      }
      assertThat(batches).isEqualTo(ShardManifest.read(shards).batchesPerEpoch);
    }
  }
}
