import os,re,statistics as st,sys
# usage: table3.py LOG:label ... ; prints the per-fold table rows, then for each log the mean
# last-epoch val Micro-F1 over the folds after every 10th epoch (the curve of a constant-lr run)
sd=lambda x: st.stdev(x) if len(x)>1 else 0
rows_out=[]; curves=[]
for arg in sys.argv[1:]:
    f,name=arg.split(':',1)
    L=open(os.path.join(os.path.dirname(os.path.abspath(__file__)),'%s.log'%f)).read()
    rows=re.findall(r'fold (\d) seed (\d+) \(([\d.]+)s\): last epoch val micro ([\d.]+) macro ([\d.]+) \| best epoch (\d+) val micro ([\d.]+) macro ([\d.]+)',L)
    # per-fold epoch curves: split the log at the fold lines
    parts=re.split(r'fold \d seed \d+ \(',L)
    ep=[re.findall(r'epoch (\d+) loss ([\d.]+) val accuracy=[\d.]+ micro_f1=([\d.]+) macro_f1=([\d.]+)',p) for p in parts]
    ep=[e for e in ep if e]
    if rows:
        folds=[int(r[0]) for r in rows]
        mi=[float(r[3]) for r in rows]; ma=[float(r[4]) for r in rows]; bmi=[float(r[6]) for r in rows]; bma=[float(r[7]) for r in rows]
        cells=' / '.join(('%.4f'%mi[folds.index(k)]) if k in folds else '-' for k in range(3))
        be=' / '.join(r[5] for r in rows)
        secs=' / '.join('%.0f'%float(r[2]) for r in rows)
        print('| %s | %s | %.4f ± %.4f | %.4f ± %.4f | %.4f / %.4f | %s | %s | %d of 3 |'%(name,cells,st.mean(mi),sd(mi),st.mean(ma),sd(ma),st.mean(bmi),st.mean(bma),be,secs,len(rows)))
    curves.append((name,ep))
print()
for name,ep in curves:
    n=min(len(e) for e in ep) if ep else 0
    pts=[]
    for k in list(range(10,n+1,10)) or [n]:
        mi=[float(e[k-1][2]) for e in ep]; ma=[float(e[k-1][3]) for e in ep]; lo=[float(e[k-1][1]) for e in ep]
        pts.append('%d: %.4f / %.4f (loss %.3f)'%(k,st.mean(mi),st.mean(ma),st.mean(lo)))
    tail=[st.mean(float(x[2]) for x in e[n-10:n]) for e in ep]
    print('%s (%d folds, %d epochs): '%(name,len(ep),n)+'; '.join(pts)+' | mean of the last 10 epochs per fold: '+' / '.join('%.4f'%t for t in tail)+' (mean %.4f)'%st.mean(tail))
