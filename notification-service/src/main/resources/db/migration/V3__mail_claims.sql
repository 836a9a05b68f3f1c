-- Several instances share the pending mails: a sender claims a mail before it sends it (MailClaims). claimed_by names
-- the sender (<pid>@<host>) that holds the mail while lease_until is in the future, and on a SENT row the sender that
-- sent it. A pending mail whose lease has passed is claimable again: its sender died or lost its database while sending.
-- Both NULL: never claimed, or released after the SMTP server refused it. Leases are read and written on the
-- database's clock, the one clock every instance shares.
ALTER TABLE notifications ADD COLUMN claimed_by text;
ALTER TABLE notifications ADD COLUMN lease_until timestamptz;
