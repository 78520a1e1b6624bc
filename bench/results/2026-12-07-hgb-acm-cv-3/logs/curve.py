import os,re,statistics as st
# mean last-epoch val Micro-F1 (Macro-F1) of the constant-lr batch-256 runs after k epochs, per seed set
def folds(f):
    L=open(os.path.join(os.path.dirname(os.path.abspath(__file__)),'%s.log'%f)).read()
    parts=re.split(r'fold \d seed \d+ \(',L)
    ep=[re.findall(r'epoch (\d+) loss ([\d.]+) val accuracy=[\d.]+ micro_f1=([\d.]+) macro_f1=([\d.]+)',p) for p in parts]
    return [e for e in ep if e]
for model,a,b in [('hgn','hgn-b256-e60-lr5e-3','hgn-b256-e30-lr5e-3-seeds456'),('rgcn','rgcn-b256-e60','rgcn-b256-e30-seeds456')]:
    A=folds(a); B=folds(b)
    for k in [10,20,30,40,50,60]:
        ma=[float(e[k-1][2]) for e in A]; Ma=[float(e[k-1][3]) for e in A]; la=[float(e[k-1][1]) for e in A]
        s='| %s | %d | %s | %.4f | %.4f | %.3f |'%(model,k,' / '.join('%.4f'%x for x in ma),st.mean(ma),st.mean(Ma),st.mean(la))
        if k<=30:
            mb=[float(e[k-1][2]) for e in B]; Mb=[float(e[k-1][3]) for e in B]
            s+=' %s | %.4f | %.4f ± %.4f / %.4f ± %.4f |'%(' / '.join('%.4f'%x for x in mb),st.mean(mb),st.mean(ma+mb),st.stdev(ma+mb),st.mean(Ma+Mb),st.stdev(Ma+Mb))
        else: s+=' - | - | - |'
        print(s)
