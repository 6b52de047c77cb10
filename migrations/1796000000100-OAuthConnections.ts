import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Connections through OAuth: oauth_states holds a started connection until its callback uses it
 * (once) or it expires; oauth_clients the clients Herald registered on servers that register
 * them on request (a Mastodon instance), their secrets sealed.
 */
export class OAuthConnections1796000000100 implements MigrationInterface {
  name = 'OAuthConnections1796000000100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "oauth_clients" ("id" SERIAL NOT NULL, "platform" character varying(32) NOT NULL, "issuer" character varying(2048) NOT NULL, "redirect_uri" character varying(2048) NOT NULL, "client_id" character varying(255) NOT NULL, "client_secret_encrypted" text NOT NULL, "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c4759172d3431bae6f04e678e0d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_02df1b595fa046830d684437fd" ON "oauth_clients" ("platform", "issuer", "redirect_uri")`,
    );
    await queryRunner.query(
      `CREATE TABLE "oauth_states" ("state_hash" character varying(64) NOT NULL, "project_id" integer NOT NULL, "platform" character varying(32) NOT NULL, "user_id" integer NOT NULL, "code_verifier_encrypted" text NOT NULL, "redirect_url" character varying(2048), "context" jsonb NOT NULL, "expires_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5defe4681c33ccfc0f935f51398" PRIMARY KEY ("state_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_3428dba434f8ac2ff17164e068" ON "oauth_states" ("project_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_73e9bb2ca346c18abb52343c45" ON "oauth_states" ("user_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_570fe1df341197ba96a80b1bbc" ON "oauth_states" ("expires_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_states" ADD CONSTRAINT "FK_3428dba434f8ac2ff17164e0686" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_states" ADD CONSTRAINT "FK_73e9bb2ca346c18abb52343c456" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oauth_states"`);
    await queryRunner.query(`DROP TABLE "oauth_clients"`);
  }
}
