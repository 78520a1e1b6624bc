package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreWritersTest {
  @TempDir Path tmp;

  @Test
  void writersRefuseWrongRowCountsAndHeadersParseBack() {
    Path f = tmp.resolve("x.csr");
    CsrFileWriter w = new CsrFileWriter(f, 0, 0, 2);
    w.endRow();
    assertThatThrownBy(w::finish).hasMessageContaining("wrote 1 rows, expected 2");
    w.close();
    byte[] h = StoreHeader.create(StoreLayout.CSR_MAGIC).putLong(16, 42).toBytes();
    StoreHeader back = StoreHeader.parse("x", h, StoreLayout.CSR_MAGIC, 64);
    assertThat(back.getLong(16)).isEqualTo(42);
    assertThatThrownBy(() -> StoreHeader.parse("x", h, StoreLayout.NODES_MAGIC, 64))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("bad magic 'FNOCSR01'");
  }
}
