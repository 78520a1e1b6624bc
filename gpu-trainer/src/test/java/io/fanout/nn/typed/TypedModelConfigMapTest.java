package io.fanout.nn.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.EmbeddingMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A typed model's configuration as checkpoint pairs: settings at their old behaviour write no new
 * key (old checkpoints stay byte-identical), others round-trip.
 */
class TypedModelConfigMapTest {
  private static TypedModelConfig hgn(HgnSettings s) {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    return TypedModelConfig.of(g.schema(), 0, TypedModelKind.HGN, 4, 2, 0.2f, 0, EmbeddingMode.AUTO)
        .withHgn(s);
  }

  @Test
  void inputWidthOfHiddenWritesNoKey() {
    TypedModelConfig cfg = hgn(new HgnSettings(2, 0.2f, 0.3f, 3, 2.5f));
    Map<String, String> m = cfg.toMap();
    assertThat(m).doesNotContainKey("hgn.input_width");
    assertThat(cfg.inputWidth()).isEqualTo(4);
    assertThat(TypedModelConfig.fromMap(m)).isEqualTo(cfg);
  }

  @Test
  void inputWidthRoundTrips() {
    TypedModelConfig cfg = hgn(new HgnSettings(2, 0.2f, 0.3f, 3, 2.5f).withInputWidth(8));
    Map<String, String> m = cfg.toMap();
    assertThat(m).containsEntry("hgn.input_width", "8");
    TypedModelConfig back = TypedModelConfig.fromMap(m);
    assertThat(back).isEqualTo(cfg);
    assertThat(back.inputWidth()).isEqualTo(8);
    assertThat(back.layerIn(0)).isEqualTo(8);
  }

  @Test
  void noEdgeResidualWritesNoKeyAndAnOldCheckpointReadsAsNone() {
    TypedModelConfig cfg = hgn(new HgnSettings(2, 0.2f, 0.3f, 3, 2.5f));
    Map<String, String> m = cfg.toMap();
    assertThat(m).doesNotContainKey("hgn.attn_residual");
    assertThat(TypedModelConfig.fromMap(m).hgn().attnResidual()).isZero();
  }

  @Test
  void edgeResidualRoundTrips() {
    TypedModelConfig cfg = hgn(new HgnSettings(2, 0.2f, 0.3f, 3, 2.5f).withAttnResidual(0.05f));
    Map<String, String> m = cfg.toMap();
    assertThat(m).containsEntry("hgn.attn_residual", "0.05");
    assertThat(TypedModelConfig.fromMap(m)).isEqualTo(cfg);
  }

  @Test
  void otherModelsKeepTheHiddenInputWidth() {
    ArrayTypedGraph g = TypedTestGraphs.small(11);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.RGCN, 4, 2, 0.2f, 0, EmbeddingMode.AUTO)
            .withHgn(HgnSettings.DEFAULT.withInputWidth(8));
    assertThat(cfg.inputWidth()).isEqualTo(4);
  }
}
