package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelDirFilesTest {
  @TempDir Path tmp;

  private Path metrics(String text) throws Exception {
    Path f = tmp.resolve(ModelDirFiles.METRICS);
    Files.writeString(f, text);
    return f;
  }

  @Test
  void aWholeFileIsLeftAsItIs() throws Exception {
    Path f = metrics("{\"epoch\":0}\n{\"epoch\":1}\n");
    assertThat(ModelDirFiles.cutTornMetrics(tmp)).isZero();
    assertThat(Files.readString(f)).isEqualTo("{\"epoch\":0}\n{\"epoch\":1}\n");
  }

  @Test
  void aLineWithoutItsNewlineIsCut() throws Exception {
    Path f = metrics("{\"epoch\":0}\n{\"epoch\":1,\"lo");
    assertThat(ModelDirFiles.cutTornMetrics(tmp)).isEqualTo(14);
    assertThat(Files.readString(f)).isEqualTo("{\"epoch\":0}\n");
  }

  @Test
  void aCompleteLineThatDoesNotParseIsCutAndOnlyTheTail() throws Exception {
    Path f = metrics("{\"epoch\":0}\n{\"epo\n{\"epoch\":2}\n{\"ep\n");
    ModelDirFiles.cutTornMetrics(tmp);
    assertThat(Files.readString(f)).isEqualTo("{\"epoch\":0}\n{\"epo\n{\"epoch\":2}\n");
    metrics("{\"ep");
    ModelDirFiles.cutTornMetrics(tmp);
    assertThat(Files.readString(f)).isEmpty();
  }

  @Test
  void noFileIsNothingToCut() {
    assertThat(ModelDirFiles.cutTornMetrics(tmp.resolve("none"))).isZero();
  }
}
