from scripts.bench.main import main

main()
