package io.fanout.shard;

import io.fanout.store.OutputCommit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A shard directory as an {@link OutputCommit} output: {@code epoch-NNNN/} part directories. */
public final class ShardOutput implements OutputCommit.Layout<ShardManifest> {
  /** The commit protocol of shard directories. */
  public static final OutputCommit<ShardManifest> COMMIT =
      new OutputCommit<>(ShardManifest.FILE, new ShardOutput());

  private ShardOutput() {}

  @Override
  public String kind() {
    return "shard directory";
  }

  @Override
  public boolean owns(String name) {
    return name.matches("epoch-\\d{4,}");
  }

  @Override
  public ShardManifest read(Path dir) {
    return ShardManifest.readAny(dir);
  }

  @Override
  public void write(ShardManifest manifest, Path file) {
    manifest.write(file);
  }

  @Override
  public String request(ShardManifest m) {
    return m.requestFingerprint;
  }

  @Override
  public String describe(ShardManifest m) {
    return "store " + m.store + ", options " + m.options;
  }

  @Override
  public String dataDir(ShardManifest m) {
    return m.dataDir;
  }

  @Override
  public void setDataDir(ShardManifest m, String dataDir) {
    m.dataDir = dataDir;
  }

  @Override
  public List<OutputCommit.FileSize> files(ShardManifest m) {
    List<OutputCommit.FileSize> out = new ArrayList<>(m.files.size());
    for (ShardManifest.Part p : m.files) {
      out.add(new OutputCommit.FileSize(p.path, p.bytes));
    }
    return out;
  }
}
