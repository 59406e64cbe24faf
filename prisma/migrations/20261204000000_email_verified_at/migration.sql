-- When the user's current email was shown to be theirs (a link sent to it, an emailed invitation they
-- accepted, an identity provider's assertion, or a sys_admin's word). Null: not verified. A change of
-- email clears it.
ALTER TABLE "users" ADD COLUMN "email_verified_at" TIMESTAMPTZ(6);
