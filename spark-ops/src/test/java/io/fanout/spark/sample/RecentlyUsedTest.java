package io.fanout.spark.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sampling caches' policy: the {@link RecentlyUsed#KEPT} entries used last stay. */
class RecentlyUsedTest {
  @Test
  void dropsTheLeastRecentlyUsedBeyondTheLimit() {
    Map<String, Integer> m = RecentlyUsed.map();
    for (int i = 0; i < RecentlyUsed.KEPT; i++) {
      m.put("run" + i, i);
    }
    assertThat(m.get("run0")).isEqualTo(0); // used again: now the most recent
    m.computeIfAbsent("run" + RecentlyUsed.KEPT, k -> RecentlyUsed.KEPT);
    assertThat(m).hasSize(RecentlyUsed.KEPT).containsKey("run0").doesNotContainKey("run1");
    m.put("run" + (RecentlyUsed.KEPT + 1), 0);
    assertThat(m).hasSize(RecentlyUsed.KEPT).containsKey("run0").doesNotContainKey("run2");
  }
}
