// Placeholder so the library is never empty.
