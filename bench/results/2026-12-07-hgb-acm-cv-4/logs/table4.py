# Per-fold val Micro-F1 after k epochs of the probe logs named, and their mean:
#   python3 table4.py K LOG [LOG ...]
import sys

k = int(sys.argv[1])
for path in sys.argv[2:]:
    folds, epochs = [], {}
    for line in open(path):
        f = line.split()
        if line.startswith('epoch '):
            epochs[int(f[1])] = (float(f[6].split('=')[1]), float(f[7].split('=')[1]))
        elif line.startswith('fold '):
            folds.append(epochs[k])
            epochs = {}
    micro = [m for m, _ in folds]
    macro = [m for _, m in folds]
    print('%s @%d: %s | Micro-F1 %.4f Macro-F1 %.4f' % (
        path, k, ' / '.join('%.4f' % m for m in micro), sum(micro) / len(micro), sum(macro) / len(macro)))
