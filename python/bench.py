"""Games per second of a random-agent loop over the Python API, to set beside
`tabula sim east-berlin --agent random --threads 1` (python/README.md has both numbers).

    python python/bench.py [--games 2000] [--ruleset east-berlin] [--record]

Each decision is two calls into the library: who is asked and how many options they have
(`turn`), and the choice applied (`choose`), with Python's `random` choosing.
"""

import argparse
import time
from random import Random

import tabula


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--ruleset", default="east-berlin")
    parser.add_argument("--record", action="store_true", help="record events (logs, narration)")
    args = parser.parse_args()
    rules = tabula.load(args.ruleset)
    random = Random(0).random
    decisions = 0
    start = time.process_time()
    for seed in range(args.games):
        game = rules.game(seed=seed, record=args.record)
        while (turn := game.turn()) is not None:
            seat, out_of_turn, n = turn
            if n == 0 or (out_of_turn and random() < 0.5):
                game.pass_turn(seat)
                continue
            game.choose(int(random() * n))
            decisions += 1
    seconds = time.process_time() - start
    print(
        f"{args.ruleset}: {args.games} games, {decisions / args.games:.1f} decisions a game, "
        f"{seconds:.2f} s of CPU, {args.games / seconds:.0f} games/s"
    )


if __name__ == "__main__":
    main()
