// Placeholder so the runtime layer library is never empty.
