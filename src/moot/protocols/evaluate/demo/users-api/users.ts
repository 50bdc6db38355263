// src/api/users.ts: REST API for user management (the artifact moot's demo evaluates)
import express, { Request, Response, NextFunction } from "express";
import { db } from "../db";
import { rateLimit } from "../middleware/rateLimit";
import { requireAuth } from "../middleware/auth";

export const users = express.Router();
users.use(rateLimit({ windowMs: 60_000, max: 100 }));

const EMAIL = /^[^@]+@[^@]+$/;

users.get("/users", requireAuth, async (req: Request, res: Response) => {
  const page = Number(req.query.page ?? 1);
  const rows = await db.query("SELECT id, name, email FROM users ORDER BY id LIMIT 50 OFFSET $1", [(page - 1) * 50]);
  res.json(rows);
});

users.get("/users/:id", requireAuth, async (req: Request, res: Response) => {
  const row = await db.one("SELECT id, name, email FROM users WHERE id = $1", [req.params.id]);
  if (!row) return res.status(404).json({ error: "not found" });
  res.json(row);
});

users.post("/users", requireAuth, async (req: Request, res: Response) => {
  const { name, email } = req.body;
  if (!name || !EMAIL.test(email)) return res.status(400).json({ error: "invalid input" });
  const row = await db.one("INSERT INTO users (name, email) VALUES ($1, $2) RETURNING id", [name, email]);
  res.status(201).json(row);
});

users.put("/users/:id", requireAuth, async (req: Request, res: Response) => {
  const { name, email } = req.body;
  await db.query("UPDATE users SET name = $1, email = $2 WHERE id = $3", [name, email, req.params.id]);
  res.status(204).end();
});

// Deletes a user and everything they own.
users.delete("/users/:id", async (req: Request, res: Response) => {
  await db.query("DELETE FROM users WHERE id = $1", [req.params.id]);
  res.status(204).end();
});

users.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
  console.error(err);
  res.status(500).json({ error: err.message });
});
