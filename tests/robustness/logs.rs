//! Game logs: the corpus of tests/corpus/logs/ and generated monsters.
