# Material and placement at ply P: the archive's games against match records.
# Run from the repository root: python3 THIS P bench/runs/DIR...
import sys,re,glob,csv,collections,statistics
START="/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
def board0():
    b={}
    rows=START.strip('/').split('/')
    for ri,row in enumerate(rows):
        rank=11-ri; f=0
        for m in re.findall(r'\d+|[tTK]',row):
            if m.isdigit(): f+=int(m)
            else:
                b[(f,rank)]={'t':'a','T':'d','K':'k'}[m]; f+=1
    return b
def sq(s): return (ord(s[0])-97,int(s[1:]))
CORN=[(0,1),(0,11),(10,1),(10,11)]
def feats(b):
    a=[p for p,v in b.items() if v=='a']
    zone=sum(1 for (f,r) in a if min(abs(f-cf)+abs(r-cr) for cf,cr in CORN)<=3)
    zone4=sum(1 for (f,r) in a if min(abs(f-cf)+abs(r-cr) for cf,cr in CORN)<=4)
    # corners 'covered': count attackers within manhattan 3 of each corner, corners with >=3
    cov=sum(1 for cf,cr in CORN if sum(1 for (f,r) in a if abs(f-cf)+abs(r-cr)<=3)>=3)
    d=sum(1 for v in b.values() if v=='d')
    k=[p for p,v in b.items() if v=='k']
    kd=min(abs(k[0][0]-cf)+abs(k[0][1]-cr) for cf,cr in CORN) if k else 0
    edge=sum(1 for (f,r) in a if f in(0,10) or r in(1,11))
    return dict(att=len(a),dfn=d,zone=zone,zone4=zone4,cov=cov,edge=edge,kd=kd)
def replay(plies,P):
    b=board0()
    for p in plies[:P]:
        parts=p.split('x'); mv=parts[0]
        if '-' not in mv: return None
        fr,to=mv.split('-')
        try:
            pc=b.pop(sq(fr)); b[sq(to)]=pc
            for c in set(parts[1:]): b.pop(sq(c),None)
        except (KeyError,ValueError,IndexError): return None  # a record this replay cannot follow: left out
    return b
def summarize(name,games,P):
    rows=[]
    for plies in games:
        if len(plies)<P: continue
        b=replay(plies,P)
        if b: rows.append(feats(b))
    if not rows: print(name,'none'); return
    keys=rows[0].keys()
    print('%-34s n=%3d '%(name,len(rows))+' '.join('%s=%.1f'%(k,statistics.mean(r[k] for r in rows)) for k in keys))
if len(sys.argv)<3 or not sys.argv[1].isdigit():
    sys.exit('usage: python3 material_at_ply.py PLY RECORD_DIR... (from the repository root)')
P=int(sys.argv[1])
exp={'A':[],'D':[]}
for r in csv.DictReader(open('crates/tafl/tests/data/aagenielsen_archive_part1.csv')):
    mv=[m for m in r['moves'].split() if m!='timeout']
    if r['recorded_winner']=='Black': exp['A'].append(mv)
    elif r['recorded_winner']=='White': exp['D'].append(mv)
eng={'A':[],'D':[],'draw':[]}
for d in sys.argv[2:]:
    for f in glob.glob(d+'/game-*.otg'):
        t=open(f).read()
        m=re.search(r'\[result:([^\]]*)\]',t)
        if not m or m.group(1) not in ('-1','0','1'):
            sys.exit(f'{f}: no result tag this script knows (-1, 0 or 1)')
        res=m.group(1)
        mv=[l.split()[1:] for l in t.splitlines() if re.match(r'\d+\.',l)]
        plies=[x for pair in mv for x in pair]
        eng[{'-1':'D','0':'draw','1':'A'}[res]].append(plies)
print('ply',P)
for k,v in exp.items(): summarize('experts, won by '+k,v,P)
for k,v in eng.items(): summarize('engine, won by '+k,v,P)
