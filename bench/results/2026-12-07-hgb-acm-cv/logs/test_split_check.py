# The test-split check of README.md ("The test split"): python3 test_split_check.py DATASET_DIR
import sys
import numpy as np
import pyarrow.parquet as pq

t = pq.read_table(sys.argv[1] + '/vertices/paper.parquet').to_pydict()
ids = np.array(t['id']); lab = np.array(t['label']); sp = np.array(t['split'])
X = np.zeros((len(ids), 1902), dtype=np.float32)
for i, f in enumerate(t['features']):
    X[i] = f
X /= np.linalg.norm(X, axis=1, keepdims=True) + 1e-12
tr = (sp == 'train') | (sp == 'val')
C = np.stack([X[tr & (lab == c)].mean(0) for c in range(3)])
pred = (X @ C.T).argmax(1)
te = np.where(sp == 'test')[0]
print('centroid: train+val', (pred[tr] == lab[tr]).mean(), 'test', (pred[te] == lab[te]).mean())
best = max(((pred[te][max(0, -k):len(te) - max(0, k)] == lab[te][max(0, k):len(te) + min(0, k)]).mean(), k)
           for k in range(-300, 301))
print('best offset in test order', best)
bestg = []
for k in range(-300, 301):
    q = te + k; ok = (q >= 0) & (q < len(ids))
    bestg.append(((pred[q[ok]] == lab[te[ok]]).mean(), k))
print('best offset in id space', max(bestg))
for lo in range(0, 3025, 250):
    m = tr & (ids >= lo) & (ids < lo + 250); mt = (sp == 'test') & (ids >= lo) & (ids < lo + 250)
    print(lo, 'train+val', np.bincount(lab[m], minlength=3), 'test', np.bincount(lab[mt], minlength=3))
