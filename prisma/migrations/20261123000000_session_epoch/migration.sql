-- Console sessions carry the epoch of their sign-in; bumping it ends every session of the user.
ALTER TABLE "users" ADD COLUMN "session_epoch" INTEGER NOT NULL DEFAULT 0;
