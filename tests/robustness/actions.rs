//! Illegal actions through the library API.
